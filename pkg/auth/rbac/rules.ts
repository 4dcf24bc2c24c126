// What one RBAC PolicyRule allows, as upstream's rule matching reads it: `*` matches every verb, group,
// resource and URL; `*/sub` matches that subresource of any resource; a trailing `*` in a non-resource
// URL is a prefix; resourceNames, when given, must name the object.
import type { Attributes } from "../authorize.ts";

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const ALL = "*";
const has = (list: string[] | undefined, v: string) => !!list && (list.includes(ALL) || list.includes(v));

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const rs = rule.resources ?? [];
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return rs.some((r) => r === ALL || r === combined || (!!subresource && r === `*/${subresource}`));
}

const namesMatch = (rule: PolicyRule, name: string) => !rule.resourceNames?.length || rule.resourceNames.includes(name);

export function urlMatches(pattern: string, path: string): boolean {
  return pattern === ALL || pattern === path || (pattern.endsWith("*") && path.startsWith(pattern.slice(0, -1)));
}

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.isResourceRequest) return (rule.nonResourceURLs ?? []).some((u) => urlMatches(u, a.path));
  return has(rule.apiGroups, a.apiGroup) && resourceMatches(rule, a.resource, a.subresource) && namesMatch(rule, a.name);
}
