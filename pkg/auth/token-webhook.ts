// --authentication-token-webhook-config-file: a token no other kind knows is sent to a remote service as a
// TokenReview (authentication.k8s.io --authentication-token-webhook-version), whose status says who it is.
// Answers are cached for --authentication-token-webhook-cache-ttl.
import { type Authenticated, AuthenticationError } from "./authenticate.ts";
import { cachedTokens } from "./token-cache.ts";
import { type TokenAuthenticator, intersect } from "./token.ts";
import { type WebhookTarget, postWebhook } from "./webhook-client.ts";

export interface TokenWebhookOptions {
  configFile: string;
  cacheTtlMs: number;
  version: "v1" | "v1beta1";
}

/**
 * Audiences: asked for some, the review names them; the webhook's answer must share one with them (its
 * status.audiences, or the API server's own when it names none), else the token is not vouched for.
 */
export function tokenWebhook(target: WebhookTarget, o: TokenWebhookOptions, apiAudiences: string[]): TokenAuthenticator {
  const ask: TokenAuthenticator = {
    async authenticateToken(token, audiences): Promise<Authenticated | null> {
      let review;
      try {
        review = await postWebhook(target, {
          apiVersion: `authentication.k8s.io/${o.version}`, kind: "TokenReview", metadata: { creationTimestamp: null },
          spec: { token, ...(audiences.length ? { audiences } : {}) }, status: { user: {} },
        });
      } catch (e) {
        throw new AuthenticationError((e as Error).message);
      }
      const st = review?.status ?? {};
      let common: string[] | undefined;
      if (audiences.length) {
        common = intersect(audiences, st.audiences?.length ? st.audiences : apiAudiences);
        if (common.length === 0) return null;
      }
      if (st.authenticated !== true) {
        if (st.error) throw new AuthenticationError(String(st.error));
        return null;
      }
      const u = st.user ?? {};
      return { user: { name: u.username ?? "", uid: u.uid || undefined, groups: u.groups ?? [], extra: u.extra ?? undefined }, audiences: common };
    },
  };
  return o.cacheTtlMs > 0 ? cachedTokens(ask, o.cacheTtlMs) : ask;
}
