// The TokenReview API (authentication.k8s.io v1 and v1beta1): a client asks whether spec.token is good for
// spec.audiences (the API server's own when none), and whose it is. The token kinds answer as they answer a
// request's bearer token; nothing is stored.
import type { Review } from "../../api/handlers/review.ts";
import { badRequest, internal } from "../../api/status.ts";
import type { Obj } from "../../registry/types.ts";
import { type Authenticated, AuthenticationError } from "../authenticate.ts";
import type { AuthFilters } from "../filter.ts";
import { intersect } from "../token.ts";
import { withAuthenticatedGroup } from "../user.ts";

export function tokenReview(auth: Pick<AuthFilters, "tokens" | "apiAudiences">): Review {
  return async (review) => {
    const spec = review.spec ?? {};
    if (!spec.token) throw badRequest("token is required for TokenReview in authentication");
    const audiences: string[] = spec.audiences?.length ? spec.audiences : auth.apiAudiences;
    let r: Authenticated | null = null, error = "invalid bearer token";
    try {
      r = await auth.tokens.authenticateToken(spec.token, audiences);
    } catch (e) {
      if (!(e instanceof AuthenticationError)) throw e;
      error = e.message;
    }
    let status: Obj = { user: {}, error };
    if (r) {
      if (audiences.length && intersect(audiences, r.audiences ?? []).length === 0) throw internal("error validating audiences");
      const u = withAuthenticatedGroup(r.user);
      const user = { username: u.name, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}) };
      status = { authenticated: true, user, ...(r.audiences?.length ? { audiences: r.audiences } : {}) };
    }
    const { kind, apiVersion, metadata, ...rest } = review;
    return { kind, apiVersion, metadata: { creationTimestamp: null, ...metadata }, ...rest, status };
  };
}
