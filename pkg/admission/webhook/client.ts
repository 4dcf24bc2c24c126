// Calls a webhook: its URL, or its Service (reached at a ready endpoint of the Service's port, with the
// serving certificate checked for <service>.<namespace>.svc), over TLS with its caBundle, showing the
// server's --proxy-client-* identity, within timeoutSeconds.
import { readFileSync } from "node:fs";
import { checkServerIdentity } from "node:tls";
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import { cachedGet } from "../lookup.ts";

export class WebhookCallError extends Error {}

interface Target { url: string; host?: string }

export class WebhookClient {
  private identity?: { cert: string; key: string };

  constructor(private registry: Registry, proxyClient?: { certFile: string; keyFile: string }) {
    if (proxyClient) this.identity = { cert: readFileSync(proxyClient.certFile, "utf8"), key: readFileSync(proxyClient.keyFile, "utf8") };
  }

  /** POSTs the review and answers the parsed body; any failure is a WebhookCallError in upstream's words. */
  async call(w: Obj, review: Obj): Promise<unknown> {
    const cc = w.clientConfig ?? {};
    const seconds = w.timeoutSeconds ?? 10;
    const target = await this.target(cc);
    const url = new URL(target.url);
    url.searchParams.set("timeout", `${seconds}s`);
    const post = `Post ${JSON.stringify(url.toString())}`;
    const ca = cc.caBundle ? Buffer.from(String(cc.caBundle), "base64").toString("utf8") : undefined;
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(review),
        signal: AbortSignal.timeout(seconds * 1000),
        tls: {
          ...(ca ? { ca } : {}), ...this.identity,
          ...(target.host ? { checkServerIdentity: (_h: string, cert: any) => checkServerIdentity(target.host!, cert) } : {}),
        },
      } as RequestInit);
    } catch (e) {
      const err = e as Error & { code?: string };
      if (err.name === "TimeoutError" || err.name === "AbortError") throw new WebhookCallError(`${post}: context deadline exceeded`);
      if (err.code === "ConnectionRefused" || err.code === "ECONNREFUSED") throw new WebhookCallError(`${post}: dial tcp ${url.host}: connect: connection refused`);
      throw new WebhookCallError(`${post}: ${err.message}`);
    }
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw new WebhookCallError(`${post}: the server responded with status code ${res.status}: ${text.slice(0, 200)}`);
    try { return JSON.parse(text); } catch { throw new WebhookCallError(`${post}: the webhook's response is not JSON`); }
  }

  /** The URL to post to: clientConfig.url, or a ready endpoint of the Service's port. */
  private async target(cc: Obj): Promise<Target> {
    if (cc.url) return { url: String(cc.url) };
    const ref = cc.service;
    if (!ref) throw new WebhookCallError("the webhook has neither url nor service");
    const svcName = `${ref.name}.${ref.namespace}.svc`;
    const svc = await cachedGet(this.registry.lookup("", "v1", "services")!, ref.namespace, ref.name);
    if (!svc) throw new WebhookCallError(`service "${ref.name}" not found`);
    const port = ((svc.spec?.ports ?? []) as Obj[]).find((p) => p.port === (ref.port ?? 443));
    if (!port) throw new WebhookCallError(`service ${svcName} has no port ${ref.port ?? 443}`);
    const eps = await cachedGet(this.registry.lookup("", "v1", "endpoints")!, ref.namespace, ref.name);
    for (const subset of (eps?.subsets ?? []) as Obj[]) {
      const p = ((subset.ports ?? []) as Obj[]).find((x) => (x.name ?? "") === (port.name ?? "")) ?? (subset.ports?.length === 1 ? subset.ports[0] : undefined);
      const addr = subset.addresses?.[0]?.ip;
      if (p && addr) return { url: `https://${addr.includes(":") ? `[${addr}]` : addr}:${p.port}${ref.path ?? ""}`, host: svcName };
    }
    throw new WebhookCallError(`no endpoints available for service "${ref.name}"`);
  }
}
