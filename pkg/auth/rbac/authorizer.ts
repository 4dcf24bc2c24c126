// The RBAC authorizer (--authorization-mode=RBAC): allows what a rule of a role bound to the caller
// allows; otherwise has no opinion, naming the roles it could not find. Also resolves the rules a user
// holds in a namespace (SelfSubjectRulesReview, the escalation checks).
import { type Attributes, type Authorizer, type Decision } from "../authorize.ts";
import type { UserInfo } from "../user.ts";
import { type Binding, type RbacIndex, type RoleRef, subjectApplies } from "./index.ts";
import { type PolicyRule, ruleAllows } from "./rules.ts";

/** Upstream's words for the binding and subject that granted a request. */
function describe(b: Binding, u: UserInfo): string {
  const s = b.subjects.find((x) => subjectApplies(x, b.namespace, u))!;
  const subject = s.kind === "ServiceAccount" ? `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || b.namespace}`)}` : `${s.kind} ${JSON.stringify(s.name)}`;
  const name = b.kind === "RoleBinding" ? `${b.name}/${b.namespace}` : b.name;
  return `${b.kind} ${JSON.stringify(name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${subject}`;
}

/** Several errors as Go's aggregate error prints them. */
export const aggregate = (errs: string[]) => (errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`);

export interface ResolvedRules { rules: PolicyRule[]; errors: string[] }

export class RbacAuthorizer implements Authorizer {
  constructor(private index: RbacIndex) {}

  authorize(a: Attributes): Decision {
    const errors: string[] = [];
    for (const b of this.index.bindingsFor(a.user, a.namespace)) {
      let rules: PolicyRule[];
      try {
        rules = this.index.roleRules(b.roleRef, b.namespace);
      } catch (e) {
        errors.push((e as Error).message);
        continue;
      }
      // the reason is read only by SubjectAccessReviews: it is worded when asked for
      for (const r of rules) if (ruleAllows(a, r)) return { decision: "allow", get reason() { return `RBAC: allowed by ${describe(b, a.user)}`; } };
    }
    return { decision: "noOpinion", reason: errors.length ? `RBAC: ${aggregate(errors)}` : "" };
  }

  roleRules(ref: RoleRef, ns: string, registryWording = false): PolicyRule[] { return this.index.roleRules(ref, ns, registryWording); }

  /** Every rule the user holds in namespace ns (cluster-wide ones included), and the roles not found. */
  rulesFor(u: UserInfo, ns: string, registryWording = false): ResolvedRules {
    const out: ResolvedRules = { rules: [], errors: [] };
    for (const b of this.index.bindingsFor(u, ns)) {
      try {
        out.rules.push(...this.index.roleRules(b.roleRef, b.namespace, registryWording));
      } catch (e) {
        out.errors.push((e as Error).message);
      }
    }
    return out;
  }
}
