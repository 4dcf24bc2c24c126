// A compact notation for the bootstrap policy tables: lists are space-separated words, `core` is the
// legacy group "". Rules come out sorted, as upstream's rule builder sorts them.
import type { PolicyRule } from "../rules.ts";
import type { Subject } from "../index.ts";
import type { Obj } from "../../../registry/types.ts";

const words = (s: string) => s.split(/\s+/).filter(Boolean).sort();

/** A resource rule: verbs on resources of groups, optionally only the named objects. */
export function r(verbs: string, groups: string, resources: string, names?: string): PolicyRule {
  const rule: PolicyRule = { verbs: words(verbs), apiGroups: words(groups).map((g) => (g === "core" ? "" : g)).sort(), resources: words(resources) };
  if (names) rule.resourceNames = words(names);
  return rule;
}

/** A non-resource rule: verbs on URL paths. */
export const url = (verbs: string, paths: string): PolicyRule => ({ verbs: words(verbs), nonResourceURLs: words(paths) });

/** create/patch/update of events in both event groups: every component reports events. */
export const events = () => r("create update patch", "core events.k8s.io", "events");

export const RBAC_API = "rbac.authorization.k8s.io";
const BOOTSTRAP_LABELS = { "kubernetes.io/bootstrapping": "rbac-defaults" };
const AUTOUPDATE = { "rbac.authorization.kubernetes.io/autoupdate": "true" };

export function clusterRole(name: string, rules: PolicyRule[], o: { labels?: Record<string, string>; aggregateFrom?: string } = {}): Obj {
  const role: Obj = {
    apiVersion: `${RBAC_API}/v1`, kind: "ClusterRole",
    metadata: { name, labels: { ...BOOTSTRAP_LABELS, ...o.labels }, annotations: { ...AUTOUPDATE } },
    rules,
  };
  if (o.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [o.aggregateFrom]: "true" } }] };
  return role;
}

export function role(namespace: string, name: string, rules: PolicyRule[]): Obj {
  return { apiVersion: `${RBAC_API}/v1`, kind: "Role", metadata: { name, namespace, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } }, rules };
}

export const user = (name: string): Subject => ({ kind: "User", apiGroup: RBAC_API, name });
export const group = (name: string): Subject => ({ kind: "Group", apiGroup: RBAC_API, name });
export const sa = (namespace: string, name: string): Subject => ({ kind: "ServiceAccount", name, namespace });

export function clusterBinding(roleName: string, subjects: Subject[], name = roleName): Obj {
  return {
    apiVersion: `${RBAC_API}/v1`, kind: "ClusterRoleBinding",
    metadata: { name, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: RBAC_API, kind: "ClusterRole", name: roleName },
    subjects,
  };
}

export function binding(namespace: string, roleName: string, subjects: Subject[], name = roleName): Obj {
  return {
    apiVersion: `${RBAC_API}/v1`, kind: "RoleBinding",
    metadata: { name, namespace, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: RBAC_API, kind: "Role", name: roleName },
    subjects,
  };
}
