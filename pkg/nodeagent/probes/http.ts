// An HTTP GET as upstream's HTTP prober makes it: no keep-alive, no certificate check, redirects followed
// on the same host only (at most 10; a redirect elsewhere ends the probe with that response), at most
// 10 KiB of the body read, one timeout over the whole exchange. Errors read as Go's client words them.
import { VERSION_INFO } from "../../version.ts";

const MAX_BODY = 10 * 1024;
const MAX_REDIRECTS = 10;

export type HttpResult = { status: number; body: string } | { error: string };

async function readBody(res: Response): Promise<string> {
  if (!res.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  while (size < MAX_BODY) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value.subarray(0, MAX_BODY - size));
    size += value.length;
  }
  void reader.cancel().catch(() => {});
  return Buffer.concat(chunks).toString();
}

/** Go's wording of a failed request to `url`. */
function requestError(url: URL, e: unknown, timedOut: boolean): string {
  const where = `Get "${url.href}"`;
  if (timedOut) return `${where}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  const code = (e as { code?: string }).code;
  const addr = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
  if (code === "ConnectionRefused" || code === "ECONNREFUSED") return `${where}: dial tcp ${addr}: connect: connection refused`;
  return `${where}: ${(e as Error).message}`;
}

/** GETs `url` with `headers` (User-Agent kube-probe/1.21 and an Accept of any type unless given); timeoutMs 0: none. */
export async function httpGet(url: URL, headers: [string, string][], timeoutMs: number, signal?: AbortSignal): Promise<HttpResult> {
  const h = new Headers();
  for (const [k, v] of headers) h.append(k, v);
  if (!h.has("user-agent")) h.set("User-Agent", `kube-probe/${VERSION_INFO.major}.${VERSION_INFO.minor}`);
  if (!headers.some(([k]) => k.toLowerCase() === "accept")) h.set("Accept", "*/*");
  else if (!h.get("accept")) h.delete("accept");
  h.set("Connection", "close");
  const signals = [...(timeoutMs > 0 ? [AbortSignal.timeout(timeoutMs)] : []), ...(signal ? [signal] : [])];
  const timeout = AbortSignal.any(signals);
  let current = url;
  for (let redirects = 0; ; redirects++) {
    let res: Response;
    try {
      res = await fetch(current, { headers: h, redirect: "manual", signal: timeout, tls: { rejectUnauthorized: false } } as RequestInit);
    } catch (e) {
      return { error: requestError(current, e, timeout.aborted) };
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, current);
      if (next.hostname === url.hostname) {
        void res.body?.cancel().catch(() => {});
        if (redirects + 1 >= MAX_REDIRECTS) return { error: `Get "${next.href}": stopped after ${MAX_REDIRECTS} redirects` };
        current = next;
        continue;
      }
    }
    try {
      return { status: res.status, body: await readBody(res) };
    } catch (e) {
      return { error: requestError(current, e, timeout.aborted) };
    }
  }
}
