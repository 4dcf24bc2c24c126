// --audit-policy-file: an audit.k8s.io Policy, and which level and stages a request is recorded at.
// The first rule that matches decides; no rule matching means level None (nothing recorded).
import { readFileSync } from "node:fs";
import { decodeYaml } from "../yaml/decode.ts";

export const LEVELS = ["None", "Metadata", "Request", "RequestResponse"] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"] as const;
export type Stage = (typeof STAGES)[number];

interface GroupResources { group?: string; resources?: string[]; resourceNames?: string[] }
interface Rule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}
interface Policy { rules: Rule[]; omitStages?: Stage[]; omitManagedFields?: boolean }

/** What the policy asks of one request. */
export interface Decision { level: Level; omitStages: Set<Stage>; omitManagedFields: boolean }

/** The request as the policy sees it (upstream's authorizer.Attributes). */
export interface PolicyRequest {
  user: { name: string; groups: string[] };
  verb: string;
  isResourceRequest: boolean;
  path: string;
  group: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const VERSIONS = ["audit.k8s.io/v1", "audit.k8s.io/v1beta1", "audit.k8s.io/v1alpha1"];

function check(p: Record<string, any>): Policy {
  if (p?.kind !== "Policy" || !VERSIONS.includes(p.apiVersion)) throw new Error(`expected kind Policy in ${VERSIONS.join(" or ")}, got ${p?.apiVersion ?? ""} ${p?.kind ?? ""}`.trim());
  const stages = (v: unknown, at: string) => {
    for (const s of (v as unknown[]) ?? []) if (!STAGES.includes(s as Stage)) throw new Error(`${at}: Unsupported value: "${s}": supported values: "${STAGES.join('", "')}"`);
  };
  if (!Array.isArray(p.rules) || p.rules.length === 0) throw new Error("policy has no rules");
  stages(p.omitStages, "omitStages");
  p.rules.forEach((r: Rule, i: number) => {
    if (!LEVELS.includes(r?.level)) throw new Error(`rules[${i}].level: Unsupported value: "${r?.level ?? ""}": supported values: "${LEVELS.join('", "')}"`);
    stages(r.omitStages, `rules[${i}].omitStages`);
    if (r.nonResourceURLs?.length && (r.resources?.length || r.namespaces?.length)) {
      throw new Error(`rules[${i}].nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`);
    }
  });
  return p as Policy;
}

/** Reads the policy file; throws one line naming the file and the problem. */
export function loadPolicy(file: string): AuditPolicy {
  try {
    return new AuditPolicy(check(decodeYaml(readFileSync(file, "utf8")) as Record<string, any>));
  } catch (e) {
    throw new Error(`loading audit policy file "${file}": ${(e as Error).message}`);
  }
}

const has = (list: string[] | undefined, v: string) => !list?.length || list.includes(v);

/** A non-resource URL rule: exact, `*`, or a prefix ending in `*`. */
const pathMatches = (path: string, spec: string) => spec === "*" || spec === path || (spec.endsWith("*") && path.startsWith(spec.slice(0, -1)));

function resourceMatches(g: GroupResources, r: PolicyRequest): boolean {
  if ((g.group ?? "") !== r.group) return false;
  if (!g.resources?.length) return true;
  if (g.resourceNames?.length && !g.resourceNames.includes(r.name)) return false;
  const combined = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  return g.resources.some((res) =>
    res === "*" || res === combined
    || (r.subresource !== "" && res.startsWith("*/") && res.slice(2) === r.subresource)
    || (res.endsWith("/*") && res.slice(0, -2) === r.resource));
}

function ruleMatches(rule: Rule, r: PolicyRequest): boolean {
  if (!has(rule.users, r.user.name)) return false;
  if (rule.userGroups?.length && !r.user.groups.some((g) => rule.userGroups!.includes(g))) return false;
  if (!has(rule.verbs, r.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) {
    if (!r.isResourceRequest) return false;
    // cluster-scoped resources have the namespace ""
    if (!has(rule.namespaces, r.namespace)) return false;
    return !rule.resources?.length || rule.resources.some((g) => resourceMatches(g, r));
  }
  if (rule.nonResourceURLs?.length) return !r.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(r.path, spec));
  return true;
}

export class AuditPolicy {
  private none: Decision;

  constructor(private p: Policy) {
    this.none = { level: "None", omitStages: new Set(), omitManagedFields: false };
  }

  decide(r: PolicyRequest): Decision {
    const rule = this.p.rules.find((x) => ruleMatches(x, r));
    if (!rule || rule.level === "None") return this.none;
    return {
      level: rule.level,
      omitStages: new Set([...(this.p.omitStages ?? []), ...(rule.omitStages ?? [])]),
      omitManagedFields: rule.omitManagedFields ?? this.p.omitManagedFields ?? false,
    };
  }
}
