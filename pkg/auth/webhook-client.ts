// A webhook the server calls (authorization, token review): its kubeconfig file (the current context's
// cluster and user: server URL, CA, client certificate, token) and a JSON POST to it, retried on the
// errors upstream's webhook client retries with its back-off.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { decodeYaml } from "../yaml/decode.ts";

export interface WebhookTarget {
  url: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  insecure: boolean;
}

type Dict = Record<string, any>;

/** Reads `file` (YAML or JSON kubeconfig); throws one line naming what is wrong. */
export function loadWebhookConfig(file: string): WebhookTarget {
  const cfg = (decodeYaml(readFileSync(file, "utf8")) ?? {}) as Dict;
  const named = (list: unknown, name: string | undefined, key: string): Dict | undefined => {
    if (!Array.isArray(list)) return undefined;
    const entry = name === undefined ? list[0] : list.find((e) => e?.name === name);
    return entry?.[key];
  };
  const ctx = named(cfg.contexts, cfg["current-context"] || undefined, "context");
  const cluster = named(cfg.clusters, ctx?.cluster, "cluster");
  const user = named(cfg.users, ctx?.user, "user") ?? {};
  if (!cluster?.server) throw new Error(`invalid configuration: no server found for cluster in ${file}`);
  const path = (p: string) => (isAbsolute(p) ? p : join(dirname(file), p));
  const data = (inline: unknown, ref: unknown) =>
    typeof inline === "string" && inline ? Buffer.from(inline, "base64").toString("utf8") : typeof ref === "string" && ref ? readFileSync(path(ref), "utf8") : undefined;
  return {
    url: String(cluster.server),
    ca: data(cluster["certificate-authority-data"], cluster["certificate-authority"]),
    cert: data(user["client-certificate-data"], user["client-certificate"]),
    key: data(user["client-key-data"], user["client-key"]),
    token: user.token || (user.tokenFile ? readFileSync(path(user.tokenFile), "utf8").trim() : undefined),
    insecure: cluster["insecure-skip-tls-verify"] === true,
  };
}

/** A failed call, in the words of client-go's errors. */
export class WebhookError extends Error {
  constructor(message: string, readonly retry: boolean) {
    super(message);
  }
}

const TIMEOUT_MS = 30_000;

async function postOnce(t: WebhookTarget, body: unknown): Promise<Dict> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (t.token) headers.authorization = `Bearer ${t.token}`;
  let r: Response;
  try {
    r = await fetch(t.url, {
      method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS),
      tls: { ca: t.ca, cert: t.cert, key: t.key, rejectUnauthorized: !t.insecure },
    } as RequestInit);
  } catch (e) {
    const msg = (e as Error).message;
    throw new WebhookError(`Post "${t.url}": ${msg}`, /reset/i.test(msg) || (e as Error).name === "TimeoutError");
  }
  const text = await r.text();
  if (r.status < 200 || r.status > 299) {
    // client-go retries what says "try again": 5xx internal errors, timeouts, 429, a Retry-After
    const retry = r.status === 500 || r.status === 504 || r.status === 429 || r.headers.has("retry-after");
    throw new WebhookError(`an error on the server (${JSON.stringify(text.trim() || r.statusText)}) has prevented the request from succeeding (post ${r.status})`, retry);
  }
  try {
    return JSON.parse(text) as Dict;
  } catch {
    throw new WebhookError(`the webhook's answer is not JSON: ${JSON.stringify(text.slice(0, 200))}`, false);
  }
}

export interface Backoff { initialMs: number; factor: number; steps: number }
/** upstream's DefaultAuthorizationRetryBackoff (jitter left out). */
export const AUTHZ_BACKOFF: Backoff = { initialMs: 500, factor: 1.5, steps: 5 };

/** POSTs `body`; retries what client-go retries, up to `b.steps` tries; throws the last WebhookError. */
export async function postWebhook(t: WebhookTarget, body: unknown, b: Backoff = AUTHZ_BACKOFF): Promise<Dict> {
  let wait = b.initialMs;
  for (let i = 1; ; i++) {
    try {
      return await postOnce(t, body);
    } catch (e) {
      if (!(e instanceof WebhookError) || !e.retry || i >= b.steps) throw e;
      await Bun.sleep(wait);
      wait *= b.factor;
    }
  }
}
