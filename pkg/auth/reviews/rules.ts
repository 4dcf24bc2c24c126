// What each authorization mode says a user may do in a namespace (upstream's RuleResolver), for
// SelfSubjectRulesReview: the rules of every mode together, incomplete when a mode cannot list its rules.
import type { AuthorizationMode } from "../config.ts";
import type { Rbac } from "../rbac/service.ts";
import type { PolicyRule } from "../rbac/rules.ts";
import type { UserInfo } from "../user.ts";

export interface ResolvedRules { rules: PolicyRule[]; incomplete: boolean; errors: string[] }

type Resolver = (u: UserInfo, ns: string) => ResolvedRules;

const EVERYTHING: PolicyRule[] = [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }, { verbs: ["*"], nonResourceURLs: ["*"] }];

function resolverOf(mode: AuthorizationMode, rbac: Rbac | undefined): Resolver {
  switch (mode) {
    case "AlwaysAllow": return () => ({ rules: EVERYTHING, incomplete: false, errors: [] });
    case "AlwaysDeny": return () => ({ rules: [], incomplete: false, errors: [] });
    case "RBAC": return (u, ns) => ({ ...rbac!.authorizer.rulesFor(u, ns), incomplete: false });
    // a mode that cannot enumerate what it allows (Webhook, Node, ABAC here) leaves the answer incomplete
    default: return () => ({ rules: [], incomplete: true, errors: [] });
  }
}

export function ruleResolver(modes: AuthorizationMode[], rbac: Rbac | undefined): Resolver {
  const resolvers = modes.map((m) => resolverOf(m, rbac));
  return (u, ns) => {
    const out: ResolvedRules = { rules: [], incomplete: false, errors: [] };
    for (const r of resolvers) {
      const got = r(u, ns);
      out.rules.push(...got.rules);
      out.incomplete ||= got.incomplete;
      out.errors.push(...got.errors);
    }
    return out;
  };
}
