// Remembers a token kind's answers for a while (the webhook's --authentication-token-webhook-cache-ttl):
// approvals and refusals alike, never errors (an unreachable webhook is asked again). Identical questions
// in flight share one answer. Keys are digests, so no token is kept in memory in the clear.
import { createHash } from "node:crypto";
import type { Authenticated } from "./authenticate.ts";
import type { TokenAuthenticator } from "./token.ts";

const MAX_ENTRIES = 4096;

export function cachedTokens(inner: TokenAuthenticator, ttlMs: number): TokenAuthenticator {
  const answers = new Map<string, { until: number; answer: Authenticated | null }>();
  const inflight = new Map<string, Promise<Authenticated | null>>();
  return {
    async authenticateToken(token, audiences) {
      const key = createHash("sha256").update(JSON.stringify([token, audiences])).digest("base64");
      const hit = answers.get(key);
      if (hit && hit.until > Date.now()) return hit.answer;
      answers.delete(key);
      let p = inflight.get(key);
      if (!p) {
        p = (async () => inner.authenticateToken(token, audiences))();
        inflight.set(key, p);
        p.then((answer) => {
          if (answers.size >= MAX_ENTRIES) answers.delete(answers.keys().next().value!);
          answers.set(key, { until: Date.now() + ttlMs, answer });
        }, () => {}).finally(() => inflight.delete(key));
      }
      return p;
    },
  };
}
