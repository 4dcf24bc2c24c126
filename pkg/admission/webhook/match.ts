// Which webhooks a request goes to: rules (operations, groups, versions, resources with `*` and
// subresources, scope), then the namespace and object selectors.
import { labelSelector } from "../../scheduler/framework/selectors.ts";
import type { Obj, ResourceDef } from "../../registry/types.ts";
import type { Attributes } from "../types.ts";

const anyOf = (list: string[] | undefined, v: string) => (list ?? []).some((x) => x === "*" || x === v);

/** A rule's resource entry: `pods`, `pods/status`, `*`, `*\/status`, `pods/*`, `*\/*`. */
function resourceMatches(entries: string[] | undefined, resource: string, sub: string): boolean {
  return (entries ?? []).some((e) => {
    const [r, s = ""] = e.split("/", 2);
    if (r !== "*" && r !== resource) return false;
    return e.includes("/") ? s === "*" || s === sub : sub === "";
  });
}

/** Does the rule match the request, taken as a request for `def` (the request's own, or an equivalent)? */
export function ruleMatches(rule: Obj, a: Attributes, def: ResourceDef = a.def): boolean {
  if (!anyOf(rule.operations, a.operation)) return false;
  if (!anyOf(rule.apiGroups, def.group) || !anyOf(rule.apiVersions, def.version)) return false;
  if (!resourceMatches(rule.resources, def.plural, a.subresource)) return false;
  const scope = rule.scope ?? "*";
  // a Namespace is cluster-scoped for this purpose
  return scope === "*" || (scope === "Namespaced" ? def.namespaced : !def.namespaced);
}

/** The same resource at every other version and group it is served as: the defs stored at the same place. */
const storedAt = (d: ResourceDef) => d.storageResource ?? d.plural;
export const equivalentsOf = (def: ResourceDef, defs: ResourceDef[]) => defs.filter((d) => d !== def && storedAt(d) === storedAt(def));

/**
 * The def a webhook is called for: the request's own when a rule matches it; with matchPolicy Equivalent
 * otherwise the first equivalent one a rule matches (earlier rules first), as upstream.
 */
export function invocationDef(w: Obj, a: Attributes, defs: () => ResourceDef[]): ResourceDef | undefined {
  const rules = (w.rules ?? []) as Obj[];
  if (rules.some((r) => ruleMatches(r, a))) return a.def;
  if (w.matchPolicy !== "Equivalent") return undefined;
  const equivalents = equivalentsOf(a.def, defs());
  for (const r of rules) for (const d of equivalents) if (ruleMatches(r, a, d)) return d;
  return undefined;
}

/** The object selector matches the new or the old object's labels. */
export function objectMatches(w: Obj, a: Attributes): boolean {
  const sel = labelSelector(w.objectSelector ?? {});
  if (sel.everything) return true;
  return [a.object, a.oldObject].some((o) => o && sel.matches(o.metadata?.labels ?? {}));
}

/** The namespace selector: the namespace's labels for namespaced objects, a Namespace's own, anything for cluster-scoped ones. */
export async function namespaceMatches(w: Obj, a: Attributes, namespaceLabels: (ns: string) => Promise<Record<string, string> | undefined>): Promise<boolean> {
  const sel = labelSelector(w.namespaceSelector ?? {});
  if (sel.everything) return true;
  if (a.def.group === "" && a.def.kind === "Namespace") return sel.matches((a.object ?? a.oldObject)?.metadata?.labels ?? {});
  if (!a.def.namespaced || !a.namespace) return true;
  return sel.matches((await namespaceLabels(a.namespace)) ?? {});
}
