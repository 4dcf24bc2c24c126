// Whether one set of rules covers another, as upstream's escalation checks and policy reconciliation
// decide it: every rule wanted is broken down to one verb on one resource (or URL) of one group, and
// each piece must be covered by a single held rule.
import { type PolicyRule, urlMatches } from "./rules.ts";

const ALL = "*";
const has = (list: string[] | undefined, v: string) => (list ?? []).includes(v);
const hasAll = (list: string[] | undefined, vs: string[] | undefined) => (vs ?? []).every((v) => has(list, v));

/** One rule per group × resource × verb (× name), and per URL × verb. */
export function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const g of rule.apiGroups ?? []) {
    for (const res of rule.resources ?? []) {
      for (const v of rule.verbs) {
        if (rule.resourceNames?.length) for (const n of rule.resourceNames) out.push({ apiGroups: [g], resources: [res], verbs: [v], resourceNames: [n] });
        else out.push({ apiGroups: [g], resources: [res], verbs: [v] });
      }
    }
  }
  for (const u of rule.nonResourceURLs ?? []) for (const v of rule.verbs) out.push({ nonResourceURLs: [u], verbs: [v] });
  return out;
}

function resourcesCover(held: string[] | undefined, wanted: string[] | undefined): boolean {
  if (has(held, ALL) || hasAll(held, wanted)) return true;
  return (wanted ?? []).every((w) => has(held, w) || (w.includes("/") && has(held, `*/${w.slice(w.indexOf("/") + 1)}`)));
}

function ruleCovers(held: PolicyRule, wanted: PolicyRule): boolean {
  const verbs = has(held.verbs, ALL) || hasAll(held.verbs, wanted.verbs);
  const groups = has(held.apiGroups, ALL) || hasAll(held.apiGroups, wanted.apiGroups);
  const urls = (wanted.nonResourceURLs ?? []).every((w) => (held.nonResourceURLs ?? []).some((h) => h === w || (h.endsWith("*") && urlMatches(h, w))));
  const names = !held.resourceNames?.length || (!!wanted.resourceNames?.length && hasAll(held.resourceNames, wanted.resourceNames));
  return verbs && groups && resourcesCover(held.resources, wanted.resources) && names && urls;
}

/** The pieces of `wanted` that no rule of `held` covers (empty when held covers wanted). */
export function uncovered(held: PolicyRule[], wanted: PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const w of wanted) for (const piece of breakdown(w)) if (!held.some((h) => ruleCovers(h, piece))) missing.push(piece);
  return missing;
}
