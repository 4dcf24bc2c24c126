// Bearer tokens: every token kind (static file, bootstrap Secrets, service accounts, OIDC, the webhook)
// is a TokenAuthenticator; the union asks them in upstream's order and the first to vouch wins.
import { type Authenticated, AuthenticationError } from "./authenticate.ts";

/**
 * One kind of token. `audiences` are the audiences the caller wants the token to be for (the API server's
 * own for a request, a TokenReview's spec.audiences); empty means no audience is asked for. Answers null
 * when the token is not of its kind or not known to it; throws AuthenticationError when it knows the token
 * is bad and says why (expired, wrong signature); the union goes on to the next kind either way.
 */
export interface TokenAuthenticator {
  authenticateToken(token: string, audiences: string[]): Authenticated | null | Promise<Authenticated | null>;
}

export const intersect = (a: string[], b: string[]) => a.filter((x) => b.includes(x));

/** The token kinds in order: the first to vouch wins; with none, the reasons of those that refused (else null). */
export class TokenUnion implements TokenAuthenticator {
  constructor(readonly kinds: TokenAuthenticator[]) {}

  async authenticateToken(token: string, audiences: string[]): Promise<Authenticated | null> {
    const reasons: string[] = [];
    for (const k of this.kinds) {
      try {
        const r = await k.authenticateToken(token, audiences);
        if (r) return r;
      } catch (e) {
        if (!(e instanceof AuthenticationError)) throw e;
        reasons.push(e.message);
      }
    }
    // Go's error aggregate: one reason as it is, several in brackets.
    if (reasons.length === 1) throw new AuthenticationError(reasons[0]);
    if (reasons.length > 1) throw new AuthenticationError(`[${reasons.join(", ")}]`);
    return null;
  }
}

/**
 * A token kind that names no audience (static and bootstrap tokens) is good for the API server's own
 * audiences only: asked for others it has no opinion, and what it vouches for carries the ones in common.
 */
export function audienceAgnostic(apiAudiences: string[], inner: TokenAuthenticator): TokenAuthenticator {
  return {
    async authenticateToken(token, audiences) {
      if (audiences.length === 0) return inner.authenticateToken(token, audiences);
      const common = intersect(apiAudiences, audiences);
      if (common.length === 0) return null;
      const r = await inner.authenticateToken(token, audiences);
      return r && { ...r, audiences: common };
    },
  };
}
