// RBAC's escalation checks on writes of roles and bindings, as upstream's RBAC storage makes them: a
// client may write a role only with rules it holds (or with the `escalate` verb on the role), and bind a
// role only when it holds all of its rules (or has the `bind` verb on it). system:masters may do both.
import { forbidden } from "../../api/status.ts";
import type { CallerCheck } from "../../registry/store-options.ts";
import type { Obj } from "../../registry/types.ts";
import type { Attributes, AuthorizerChain } from "../authorize.ts";
import { MASTERS, type UserInfo } from "../user.ts";
import type { RbacAuthorizer } from "./authorizer.ts";
import { uncovered } from "./covers.ts";
import { RBAC_GROUP, type RoleRef } from "./index.ts";
import type { PolicyRule } from "./rules.ts";

/** Go's %q of a string slice: ["a" "b"]. */
const goQuoted = (xs: string[] = []) => `[${xs.map((x) => JSON.stringify(x)).join(" ")}]`;

/** A rule as upstream's escalation messages print it. */
function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuoted(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuoted(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoted(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuoted(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuoted(r.verbs)}`);
  return `{${parts.join(", ")}}`;
}

/** Single-resource rules of one group (and at most one name) merged, their verbs together, as upstream compacts them. */
function compact(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = !r.nonResourceURLs?.length && (r.resourceNames?.length ?? 0) <= 1 && r.apiGroups?.length === 1 && r.resources?.length === 1;
    if (!isSimple) { out.push(r); continue; }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const had = simple.get(key);
    if (had) had.verbs.push(...r.verbs);
    else simple.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

const FULL_AUTHORITY: PolicyRule[] = [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }, { verbs: ["*"], nonResourceURLs: ["*"] }];

/** Only what the garbage collector changes (owner references, finalizers): no check, as upstream. */
function onlyGarbageCollectorFields(obj: Obj, old: Obj): boolean {
  const strip = (o: Obj) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, ...metadata } = o.metadata;
    return { ...o, metadata };
  };
  return Bun.deepEquals(strip(obj), strip(old));
}

export class EscalationChecks {
  constructor(private authz: AuthorizerChain, private rbac: RbacAuthorizer) {}

  private async allowed(user: UserInfo, verb: string, resource: string, name: string, namespace: string): Promise<boolean> {
    const a: Attributes = { user, verb, isResourceRequest: true, path: "", apiGroup: RBAC_GROUP, apiVersion: "*", namespace, resource, subresource: "", name };
    return (await this.authz.authorize(a)).decision === "allow";
  }

  /** Upstream's refusal when the user does not hold every rule in namespace ns; undefined when it does. */
  private confirmHeld(user: UserInfo, ns: string, rules: PolicyRule[]): string | undefined {
    const held = this.rbac.rulesFor(user, ns, true);
    const missing = uncovered(held.rules, rules);
    if (!missing.length) return undefined;
    const lines = [...new Set(compact(missing).map(compactString))].sort();
    let msg = `user ${JSON.stringify(user.name)} (groups=${goQuoted(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join("\n")}`;
    if (held.errors.length) msg += `; resolution errors: [${held.errors.join(" ")}]`;
    return msg;
  }

  /** The check for writes of Roles and ClusterRoles. */
  roles(plural: "roles" | "clusterroles"): CallerCheck {
    const q = { group: RBAC_GROUP, resource: plural };
    return async (obj, old, user) => {
      if (user.groups.includes(MASTERS) || (old && onlyGarbageCollectorFields(obj, old))) return;
      const ns = obj.metadata.namespace ?? "";
      // a create has no name in its request, so `escalate` granted for one name does not cover it
      if (await this.allowed(user, "escalate", plural, old ? obj.metadata.name : "", ns)) return;
      const name = obj.metadata.name;
      if (obj.aggregationRule && (!old || !Bun.deepEquals(obj.aggregationRule, old.aggregationRule)) && this.confirmHeld(user, ns, FULL_AUTHORITY)) {
        throw forbidden(q, name, "must have cluster-admin privileges to use the aggregationRule");
      }
      const why = this.confirmHeld(user, ns, obj.rules ?? []);
      if (why) throw forbidden(q, name, why);
    };
  }

  /** The check for writes of RoleBindings and ClusterRoleBindings. */
  bindings(plural: "rolebindings" | "clusterrolebindings"): CallerCheck {
    const q = { group: RBAC_GROUP, resource: plural };
    return async (obj, old, user) => {
      if (user.groups.includes(MASTERS) || (old && onlyGarbageCollectorFields(obj, old))) return;
      const ns = obj.metadata.namespace ?? "";
      const ref: RoleRef = obj.roleRef ?? {};
      const roleResource = ref.kind === "ClusterRole" ? "clusterroles" : ref.kind === "Role" ? "roles" : "";
      if (roleResource && (await this.allowed(user, "bind", roleResource, ref.name, ns))) return;
      let rules: PolicyRule[];
      try {
        rules = this.rbac.roleRules(ref, ns, true);
      } catch (e) {
        throw forbidden(q, obj.metadata.name, (e as Error).message);
      }
      const why = this.confirmHeld(user, ns, rules);
      if (why) throw forbidden(q, obj.metadata.name, why);
    };
  }
}
