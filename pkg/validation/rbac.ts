// rbac.authorization.k8s.io: rules of Roles and ClusterRoles, roleRef and subjects of bindings.
import type { Obj } from "../registry/types.ts";
import { goStrings, Printed, type Errs } from "./field.ts";
import { empty, has, isMap, list, run } from "./rules.ts";
import { dns1123Subdomain, pathSegmentName } from "./names.ts";
import { labelSelector } from "./labels.ts";

const RBAC = "rbac.authorization.k8s.io";

function rule(e: Errs, r: Obj, path: string, namespaced: boolean) {
  if (empty(r?.verbs)) e.required(`${path}.verbs`, "verbs must contain at least one value");
  if (!empty(r?.nonResourceURLs)) {
    const urls = goStrings(r.nonResourceURLs);
    if (namespaced) e.invalid(`${path}.nonResourceURLs`, new Printed(urls), "namespaced rules cannot apply to non-resource URLs");
    if (!empty(r.apiGroups) || !empty(r.resources) || !empty(r.resourceNames)) {
      e.invalid(`${path}.nonResourceURLs`, new Printed(urls), "rules cannot apply to both regular resources and non-resource URLs");
    }
    return;
  }
  if (empty(r?.apiGroups)) e.required(`${path}.apiGroups`, "resource rules must supply at least one api group");
  if (empty(r?.resources)) e.required(`${path}.resources`, "resource rules must supply at least one resource");
}

const rules = (namespaced: boolean) => (o: Obj, e: Errs) => e.each<Obj>("rules", o.rules, (r, p) => rule(e, r, p, namespaced));

export const role = (o: Obj) => run((e) => rules(true)(o, e));

export const clusterRole = (o: Obj) => run((e) => {
  rules(false)(o, e);
  const agg = o.aggregationRule;
  if (!has(agg)) return;
  if (empty(agg.clusterRoleSelectors)) e.required("aggregationRule.clusterRoleSelectors", "at least one clusterRoleSelector required if aggregationRule is non-nil");
  list(agg.clusterRoleSelectors).forEach((s, i) => labelSelector(e, `aggregationRule.clusterRoleSelectors[${i}]`, s));
});

function subject(e: Errs, s: Obj, path: string, namespaced: boolean) {
  const name = String(s?.name ?? "");
  if (!name) e.required(`${path}.name`);
  switch (s?.kind) {
    case "ServiceAccount":
      if (name) e.invalidEach(`${path}.name`, name, dns1123Subdomain(name));
      if (!empty(s.apiGroup)) e.notSupported(`${path}.apiGroup`, s.apiGroup, [""]);
      if (!namespaced && empty(s.namespace)) e.required(`${path}.namespace`);
      break;
    case "User":
    case "Group":
      // an absent apiGroup is upstream's default for these kinds
      if (has(s.apiGroup) && s.apiGroup !== RBAC) e.notSupported(`${path}.apiGroup`, s.apiGroup, [RBAC]);
      break;
    default:
      e.notSupported(`${path}.kind`, s?.kind ?? "", ["ServiceAccount", "User", "Group"]);
  }
}

/** %#v of a roleRef, as upstream prints it when it changes. */
const showRef = (r: Obj) => `rbac.RoleRef{APIGroup:${JSON.stringify(r?.apiGroup ?? "")}, Kind:${JSON.stringify(r?.kind ?? "")}, Name:${JSON.stringify(r?.name ?? "")}}`;
const sameRef = (a: Obj, b: Obj) => ["apiGroup", "kind", "name"].every((k) => (a?.[k] ?? "") === (b?.[k] ?? ""));

const binding = (kinds: string[], namespaced: boolean) => (o: Obj, old?: Obj) => run((e) => {
  const ref: Obj = isMap(o.roleRef) ? o.roleRef : {};
  if (ref.apiGroup !== RBAC) e.notSupported("roleRef.apiGroup", ref.apiGroup ?? "", [RBAC]);
  if (!kinds.includes(ref.kind)) e.notSupported("roleRef.kind", ref.kind ?? "", kinds);
  if (empty(ref.name)) e.required("roleRef.name");
  else e.invalidEach("roleRef.name", ref.name, pathSegmentName(String(ref.name)));
  e.each<Obj>("subjects", o.subjects, (s, p) => subject(e, s, p, namespaced));
  if (old && !sameRef(ref, old.roleRef)) e.invalid("roleRef", new Printed(showRef(ref)), "cannot change roleRef");
});

export const roleBinding = binding(["Role", "ClusterRole"], true);
export const clusterRoleBinding = binding(["ClusterRole"], false);
