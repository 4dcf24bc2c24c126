// PodSecurityPolicy (off by default, as upstream): a pod is admitted by a policy that the requesting user
// or the pod's ServiceAccount may `use` (asked of the server's authorizer). Policies are tried by name, one
// that admits the pod unchanged winning over one that has to fill fields in; on create the first that
// admits is applied (its defaults) and named in the `kubernetes.io/psp` annotation, and the validating
// step (create, and updates other than the garbage collector's) checks the pod again without changing it,
// the named policy first. When none admits, a 403 lists what the policies the caller may use refused.
import { forbidden } from "../../api/status.ts";
import type { AuthorizerChain } from "../../auth/authorize.ts";
import { groupsOf, username } from "../../auth/serviceaccount-claims.ts";
import type { UserInfo } from "../../auth/user.ts";
import type { Obj } from "../../registry/types.ts";
import { replaceContents } from "../../registry/versions.ts";
import { cachedList } from "../lookup.ts";
import { type Attributes, type Plugin, type PluginContext, isKind, qualified } from "../types.ts";
import { check, mutate, usable } from "./psp-provider.ts";

export const VALIDATED_PSP = "kubernetes.io/psp";

/** May `user` use the policy in the namespace (verb `use` on podsecuritypolicies in group policy)? */
async function mayUse(authz: AuthorizerChain | undefined, user: UserInfo | undefined, ns: string, name: string): Promise<boolean> {
  // the server's own writes (no caller) and servers without an authorizer are allowed everything
  if (!authz || !user) return true;
  const d = await authz.authorize({
    user, verb: "use", isResourceRequest: true, path: "", apiGroup: "policy", apiVersion: "*", namespace: ns, resource: "podsecuritypolicies", subresource: "", name,
  });
  return d.decision === "allow";
}

/** An update that changes only ownerReferences and finalizers (the garbage collector's) is not checked. */
function onlyGCFields(pod: Obj, old: Obj): boolean {
  const strip = (o: Obj) => ({ ...o, metadata: { ...o.metadata, ownerReferences: undefined, finalizers: undefined, resourceVersion: undefined, managedFields: undefined } });
  return Bun.deepEquals(strip(pod), strip(old));
}

interface Outcome { pod?: Obj; policy?: string; errors: string[] }

export function podSecurityPolicy(ctx: PluginContext): Plugin {
  const policies = () => cachedList(ctx.registry.lookup("policy", "v1beta1", "podsecuritypolicies")!);

  /** Upstream's computeSecurityContext: the pod as the chosen policy leaves it, or every authorized policy's refusals. */
  async function decide(a: Attributes, mayMutate: boolean): Promise<Outcome> {
    const pod = a.object!;
    const hint = mayMutate ? undefined : pod.metadata.annotations?.[VALIDATED_PSP];
    const sorted = (await policies()).filter(usable).sort((x, y) => {
      const xn = x.metadata.name, yn = y.metadata.name;
      if (hint !== undefined && (xn === hint) !== (yn === hint)) return xn === hint ? -1 : 1;
      return xn < yn ? -1 : xn > yn ? 1 : 0;
    });
    const sa = pod.spec?.serviceAccountName ? { name: username(a.namespace, pod.spec.serviceAccountName), groups: groupsOf(a.namespace) } : undefined;
    const authorized = async (name: string) => (await mayUse(ctx.authz, a.user, a.namespace, name)) || (!!sa && (await mayUse(ctx.authz, sa, a.namespace, name)));
    const refusals: [string, string[]][] = [];
    let firstMutated: Outcome | undefined;
    for (const psp of sorted) {
      const copy = structuredClone(pod);
      mutate(psp, copy);
      const errors = check(psp, copy);
      if (errors.length) { refusals.push([psp.metadata.name, errors]); continue; }
      const mutated = !Bun.deepEquals(copy, pod);
      if (mutated && !mayMutate) continue;
      if (!(await authorized(psp.metadata.name))) continue;
      if (!mutated) return { pod: copy, policy: psp.metadata.name, errors: [] };
      firstMutated ??= { pod: copy, policy: psp.metadata.name, errors: [] };
    }
    if (firstMutated) return firstMutated;
    const errors: string[] = [];
    for (const [name, errs] of refusals) if (await authorized(name)) errors.push(...errs);
    return { errors };
  }

  const refuse = (a: Attributes, errors: string[]) => forbidden(qualified(a), a.name, `unable to validate against any pod security policy: [${errors.join(" ")}]`);

  return {
    handles: (a) => isKind(a, "", "Pod") && !a.subresource && !!a.object &&
      (a.operation === "CREATE" || (a.operation === "UPDATE" && !!a.oldObject && !onlyGCFields(a.object, a.oldObject))),
    async admit(a) {
      // on updates the pod is only checked
      if (a.operation !== "CREATE") return;
      const out = await decide(a, true);
      if (!out.pod) throw refuse(a, out.errors);
      replaceContents(a.object!, out.pod);
      a.object!.metadata.annotations = { ...a.object!.metadata.annotations, [VALIDATED_PSP]: out.policy };
    },
    async validate(a) {
      const out = await decide(a, false);
      if (!out.pod) throw refuse(a, out.errors);
    },
  };
}
