// Authorization: the authorizers of --authorization-mode in order; the first to allow or deny decides,
// one without an opinion passes the request on, and no decision at all (no opinion) is not an allow.
import type { UserInfo } from "./user.ts";

/** What is asked (upstream's authorizer.Attributes). */
export interface Attributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** The URL path, for non-resource requests. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

/** `error`: the authorizer could not decide (a webhook that failed); without an allow it is a 500, as upstream. */
export type Decision = { decision: "allow" | "deny" | "noOpinion"; reason?: string; error?: string };

export interface Authorizer {
  authorize(a: Attributes): Decision | Promise<Decision>;
}

export const ALLOW: Decision = { decision: "allow" };
export const NO_OPINION: Decision = { decision: "noOpinion" };

export const alwaysAllow: Authorizer = { authorize: () => ALLOW };
export const alwaysDeny: Authorizer = { authorize: () => ({ decision: "deny", reason: "" }) };

export class AuthorizerChain {
  constructor(private authorizers: Authorizer[]) {}

  async authorize(a: Attributes): Promise<Decision> {
    const reasons: string[] = [], errors: string[] = [];
    for (const z of this.authorizers) {
      const d = await z.authorize(a);
      if (d.decision !== "noOpinion") return d;
      if (d.reason) reasons.push(d.reason);
      if (d.error) errors.push(d.error);
    }
    const error = errors.length > 1 ? `[${errors.join(", ")}]` : errors[0];
    // no opinion, as upstream's union says it: the filter refuses it, a SubjectAccessReview says denied: false
    return { decision: "noOpinion", reason: reasons.join("\n"), ...(error ? { error } : {}) };
  }
}

/** The message of a 403, in upstream's words. */
export function forbiddenMessage(a: Attributes): string {
  const who = JSON.stringify(a.user.name);
  if (!a.isResourceRequest) return `User ${who} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : "at the cluster scope";
  return `User ${who} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
}
