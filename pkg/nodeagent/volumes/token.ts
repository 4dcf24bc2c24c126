// Bound service-account tokens for projected volumes, as upstream's kubelet token manager keeps them: one
// TokenRequest per pod, account, audience and lifetime, reused until 80 % of its lifetime has passed
// (less a jitter of up to 10 s) or 24 h, whichever comes first; dropped with their pod.
import type { Obj } from "../node.ts";

const MAX_TTL_MS = 24 * 3600_000;
const MAX_JITTER_MS = 10_000;

export interface IssuedToken { token: string; expiresAt: number; expirationSeconds: number }

/** upstream's requiresRefresh: past 24 h since issue, or within 20 % of the lifetime (plus jitter) of expiry. */
export function requiresRefresh(t: IssuedToken, now: number, jitterMs = Math.random() * MAX_JITTER_MS): boolean {
  const issuedAt = t.expiresAt - t.expirationSeconds * 1000;
  if (now > issuedAt + MAX_TTL_MS - jitterMs) return true;
  return now > t.expiresAt - t.expirationSeconds * 200 - jitterMs;
}

export type RequestToken = (namespace: string, account: string, request: Obj) => Promise<Obj>;

export class TokenCache {
  private readonly tokens = new Map<string, IssuedToken>();

  constructor(private readonly request: RequestToken, private readonly now = Date.now) {}

  /** The pod's token for `audience` (none: the API server's), requested when missing or due for refresh. */
  async get(pod: Obj, audience: string | undefined, expirationSeconds: number): Promise<string> {
    const account = pod.spec.serviceAccountName || "default";
    const key = JSON.stringify([pod.metadata.uid, account, audience ?? "", expirationSeconds]);
    const cached = this.tokens.get(key);
    if (cached && !requiresRefresh(cached, this.now())) return cached.token;
    const tr = await this.request(pod.metadata.namespace, account, {
      apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest",
      spec: {
        audiences: audience ? [audience] : [], expirationSeconds,
        boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata.name, uid: pod.metadata.uid },
      },
    });
    const issued = { token: tr.status.token, expiresAt: Date.parse(tr.status.expirationTimestamp), expirationSeconds: tr.spec.expirationSeconds ?? expirationSeconds };
    this.tokens.set(key, issued);
    return issued.token;
  }

  forget(podUid: string): void {
    for (const k of this.tokens.keys()) if (JSON.parse(k)[0] === podUid) this.tokens.delete(k);
  }
}
