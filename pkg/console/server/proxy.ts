// The console's API proxy: what the page asks of /api, /apis and /version goes to the cluster with the
// kubeconfig's credentials, as `kubectl proxy` does; answers (watch and log streams included) stream back
// as they come.
import type { Transport } from "../../client/transport.ts";

/** The paths the page may reach: the public API and discovery, nothing else of the server. */
export const PROXIED = /^\/(api|apis)(\/|$)|^\/version$/;

/** Request headers that carry meaning to the API server; the browser's cookies and others stay here. */
const FORWARDED_REQUEST = ["accept", "content-type"];
/** Answer headers the page may see; the body is re-encoded, so encoding and length are left out. */
const FORWARDED_ANSWER = ["content-type", "warning", "audit-id", "retry-after"];

export async function proxy(transport: Transport, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  for (const h of FORWARDED_REQUEST) {
    const v = req.headers.get(h);
    if (v !== null) headers[h] = v;
  }
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
  let res: Response;
  try {
    res = await transport.forward(url.pathname + url.search, { method: req.method, headers, body, signal: req.signal });
  } catch (e) {
    if ((e as Error)?.name === "AbortError") return new Response(null, { status: 499 });
    return status(502, "ServiceUnavailable", `the console cannot reach ${transport.config.server}: ${(e as Error).message}`);
  }
  const out = new Headers();
  for (const h of FORWARDED_ANSWER) {
    const v = res.headers.get(h);
    if (v !== null) out.set(h, v);
  }
  out.set("cache-control", "no-store");
  // Streams (watches, followed logs) are passed on as they come; any other answer whole, which saves
  // the round trips of a chunked reply (tens of milliseconds on loopback).
  const streams = /^(1|true)$/.test(url.searchParams.get("watch") ?? url.searchParams.get("follow") ?? "");
  return new Response(streams ? res.body : await res.arrayBuffer(), { status: res.status, headers: out });
}

/** A Status answer of the console itself, shaped as the API server's are so the page reads one kind. */
export function status(code: number, reason: string, message: string): Response {
  return Response.json({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code }, { status: code, headers: { "cache-control": "no-store" } });
}
