// A webhook's client, configured as upstream configures it: a kubeconfig naming the server (its URL and CA)
// and the credentials the API server presents (a client certificate, or a token). Shared by every webhook
// the API server calls (token authentication, authorization).
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import YAML from "yaml";

type Dict = Record<string, any>;

export interface WebhookClient {
  /** POSTs a JSON object to the webhook; the parsed answer, or an Error saying why there is none. */
  post(body: unknown): Promise<Dict>;
}

/** The current context's cluster and user (the first of each when there is no current context). */
function pick(cfg: Dict, key: "cluster" | "user", name: string | undefined): Dict {
  const list: Dict[] = Array.isArray(cfg[`${key}s`]) ? cfg[`${key}s`] : [];
  const entry = name === undefined ? list[0] : list.find((e) => e?.name === name);
  if (!entry) throw new Error(`no ${key}${name ? ` "${name}"` : ""} in the kubeconfig`);
  return entry[key] ?? {};
}

/** Reads a webhook kubeconfig; throws a one-line reason when it is unusable. */
export function loadWebhookClient(path: string, timeoutMs = 30_000): WebhookClient {
  const cfg = (YAML.parse(readFileSync(path, "utf8"), { version: "1.1" } as never) ?? {}) as Dict;
  const current = cfg["current-context"] as string | undefined;
  const ctx = current ? (cfg.contexts ?? []).find((c: Dict) => c?.name === current)?.context : undefined;
  if (current && !ctx) throw new Error(`context "${current}" does not exist`);
  const cluster = pick(cfg, "cluster", ctx?.cluster);
  // A webhook may ask for no credentials: a kubeconfig without users is fine.
  const anyUser = Boolean(ctx?.user) || (Array.isArray(cfg.users) && cfg.users.length > 0);
  const user = anyUser ? pick(cfg, "user", ctx?.user) : {};
  const server = cluster.server as string | undefined;
  if (!server || !/^https?:\/\//.test(server)) throw new Error(`the cluster's server must be an http(s) URL, got ${JSON.stringify(server ?? "")}`);
  const base = dirname(path);
  const file = (data: string, ref: string): string | undefined => {
    if (data) return Buffer.from(data, "base64").toString("utf8");
    if (ref) return readFileSync(isAbsolute(ref) ? ref : join(base, ref), "utf8");
    return undefined;
  };
  const tls = {
    ca: file(cluster["certificate-authority-data"], cluster["certificate-authority"]),
    cert: file(user["client-certificate-data"], user["client-certificate"]),
    key: file(user["client-key-data"], user["client-key"]),
    rejectUnauthorized: cluster["insecure-skip-tls-verify"] !== true,
  };
  const token = (user.token as string | undefined) ?? (user.tokenFile ? file("", user.tokenFile)?.trim() : undefined);
  const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const once = async (body: unknown): Promise<Dict> => {
    const res = await fetch(server, { method: "POST", headers, body: JSON.stringify(body), tls, signal: AbortSignal.timeout(timeoutMs) } as RequestInit);
    const text = await res.text();
    if (!res.ok) throw new WebhookStatusError(res.status, text);
    try {
      return JSON.parse(text) as Dict;
    } catch {
      throw new Error("the webhook's answer is not JSON");
    }
  };
  return {
    async post(body) {
      // Transient refusals (500s, 429) are retried with upstream's backoff; anything else is the answer.
      for (const wait of RETRY_WAITS_MS) {
        try {
          return await once(body);
        } catch (e) {
          if (!(e instanceof WebhookStatusError && (e.code >= 500 || e.code === 429))) throw e;
        }
        await Bun.sleep(wait);
      }
      return once(body);
    },
  };
}

/** Upstream's webhook backoff: 500 ms, growing 1.5 times, five tries in all. */
const RETRY_WAITS_MS = [500, 750, 1125, 1688];

class WebhookStatusError extends Error {
  constructor(readonly code: number, body: string) {
    super(`the server responded with the status code ${code}${body ? `: ${body.slice(0, 200)}` : " but did not return more information"}`);
  }
}
