// Reconciles the bootstrap policy at every start, as upstream's rbac/bootstrap-roles post-start hook:
// missing objects are created; existing ones get the rules, subjects, aggregation selectors, labels and
// annotations they lack (what users added stays); a binding whose roleRef changed is recreated; an
// object annotated rbac.authorization.kubernetes.io/autoupdate: "false" is left alone.
import type { ResourceStore } from "../../../registry/generic.ts";
import type { Registry } from "../../../registry/registry.ts";
import type { Obj } from "../../../registry/types.ts";
import { uncovered } from "../covers.ts";
import { RBAC_GROUP } from "../index.ts";
import { CLUSTER_BINDINGS, NAMESPACE_BINDINGS, NAMESPACE_ROLES } from "./bindings.ts";
import { CLUSTER_ROLES } from "./cluster-roles.ts";
import { CONTROLLER_BINDINGS, CONTROLLER_ROLES } from "./controller-roles.ts";

const AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate";

/** The keys of `expected` the existing map lacks are added; existing values win. */
function mergeMap(existing: Record<string, string> | undefined, expected: Record<string, string>): Record<string, string> {
  return { ...expected, ...existing };
}

const sameSubject = (a: Obj, b: Obj) => a.kind === b.kind && a.name === b.name && (a.namespace ?? "") === (b.namespace ?? "");

/** The reconciled form of an existing object, or undefined when nothing is missing. */
function reconciled(cur: Obj, want: Obj): Obj | undefined {
  const next = structuredClone(cur);
  next.metadata.labels = mergeMap(cur.metadata.labels, want.metadata.labels ?? {});
  next.metadata.annotations = mergeMap(cur.metadata.annotations, want.metadata.annotations ?? {});
  const missing = uncovered(cur.rules ?? [], want.rules ?? []);
  if (missing.length) next.rules = [...(cur.rules ?? []), ...missing];
  if (want.aggregationRule) {
    const have: Obj[] = cur.aggregationRule?.clusterRoleSelectors ?? [];
    const lacking = want.aggregationRule.clusterRoleSelectors.filter((s: Obj) => !have.some((h) => Bun.deepEquals(h, s)));
    if (lacking.length) next.aggregationRule = { clusterRoleSelectors: [...have, ...lacking] };
  }
  if (want.subjects) {
    const have: Obj[] = cur.subjects ?? [];
    const lacking = want.subjects.filter((s: Obj) => !have.some((h) => sameSubject(h, s)));
    if (lacking.length) next.subjects = [...have, ...lacking];
  }
  return Bun.deepEquals(next, cur) ? undefined : next;
}

const key = (o: Obj) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;

async function reconcileOne(rs: ResourceStore, want: Obj, cur: Obj | undefined) {
  const ns = want.metadata.namespace ?? "";
  const name = want.metadata.name;
  if (!cur) {
    await rs.create(ns, structuredClone(want)).catch((e) => { if (e.code !== 409) throw e; });
    return;
  }
  if (cur.metadata.annotations?.[AUTOUPDATE] === "false") return;
  if (want.roleRef && (cur.roleRef?.kind !== want.roleRef.kind || cur.roleRef?.name !== want.roleRef.name)) {
    // roleRef is immutable: the binding is made anew, with the subjects it had
    await rs.delete(ns, name, { preconditions: { uid: cur.metadata.uid } });
    const { labels, annotations } = cur.metadata;
    const fresh = { ...structuredClone(want), subjects: cur.subjects ?? [], metadata: { name, namespace: want.metadata.namespace, labels, annotations } };
    await rs.create(ns, reconciled(fresh, want) ?? fresh);
    return;
  }
  if (!reconciled(cur, want)) return;
  await rs.guaranteedUpdate(ns, name, (latest) => reconciled(latest, want) ?? latest);
}

/** Every bootstrap role and binding is present with at least its default rules and subjects. */
export async function reconcileBootstrapPolicy(registry: Registry) {
  const store = (plural: string) => registry.lookup(RBAC_GROUP, "v1", plural)!;
  const plan: [ResourceStore, Obj[]][] = [
    [store("clusterroles"), [...CLUSTER_ROLES, ...CONTROLLER_ROLES]],
    [store("clusterrolebindings"), [...CLUSTER_BINDINGS, ...CONTROLLER_BINDINGS]],
    [store("roles"), NAMESPACE_ROLES],
    [store("rolebindings"), NAMESPACE_BINDINGS],
  ];
  for (const [rs, objs] of plan) {
    const existing = new Map<string, Obj>((await rs.list("")).items.map((o: Obj) => [key(o), o]));
    for (const want of objs) {
      try {
        await reconcileOne(rs, want, existing.get(key(want)));
      } catch (e) {
        throw new Error(`${rs.def.kind} ${want.metadata.name}: ${(e as Error).message}`);
      }
    }
  }
}
