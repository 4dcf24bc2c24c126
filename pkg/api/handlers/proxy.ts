// pods/proxy, services/proxy, nodes/proxy (upstream's ProxyREST and its upgrade-aware handler): every
// method, the headers and body passed through to the upstream the registry locates, its answer streamed
// back with a Location on the upstream rewritten to the proxy path, and WebSocket upgrades relayed.
import type { Server } from "bun";
import { type ProxyTarget, nodeProxyTarget, podProxyTarget, serviceProxyTarget } from "../../registry/proxylocation.ts";
import type { Registry } from "../../registry/registry.ts";
import { isWebSocketRequest, upgrade } from "../../serving/websocket.ts";
import { websocketProxy } from "../streaming/wsproxy.ts";
import { serviceUnavailable } from "../status.ts";
import type { HandlerContext } from "./context.ts";
import type { KubeletClient } from "./podlog.ts";
import { commaList } from "../../util/commalist.ts";

/** Headers that belong to one hop, and the caller's credentials, which the upstream never sees (upstream's authentication filter drops them). */
const NOT_FORWARDED = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host", "authorization", "content-length"]);
const forwardable = (name: string) => !NOT_FORWARDED.has(name) && !name.startsWith("impersonate-") && !name.startsWith("sec-websocket-");

/** The upstream of a proxy request, by the resource it names. */
export async function proxyTarget(ctx: HandlerContext, registry: Registry, kubelet: KubeletClient): Promise<ProxyTarget> {
  const { info } = ctx;
  const store = (r: string) => registry.lookup("", "v1", r)!;
  if (info.resource === "pods") return podProxyTarget(store("pods"), info.namespace, info.name);
  if (info.resource === "services") return serviceProxyTarget(store("services"), store("endpoints"), info.namespace, info.name);
  return nodeProxyTarget(store("nodes"), info.name, kubelet.preferredAddressTypes);
}

/** The request path up to and including `/proxy`, and what follows it ("" when nothing does). */
export function splitProxyPath(ctx: HandlerContext): { prefix: string; rest: string } {
  const { info, url } = ctx;
  const segs = url.pathname.split("/");
  // "", api|apis, [group], version, [namespaces, ns], resource, name, proxy
  const n = 2 + (info.group ? 1 : 0) + 1 + (info.namespace ? 2 : 0) + 3;
  const prefix = segs.slice(0, n).join("/");
  return { prefix, rest: segs.length > n ? `/${segs.slice(n).join("/")}` : "" };
}

export async function proxy(ctx: HandlerContext, registry: Registry, kubelet: KubeletClient, server?: Server<any>): Promise<Response> {
  const { req, url } = ctx;
  const { prefix, rest } = splitProxyPath(ctx);
  const target = await proxyTarget(ctx, registry, kubelet);
  // a bare .../proxy is redirected to .../proxy/, so that the upstream's relative links resolve under it
  if (!rest && req.method === "GET" && !isWebSocketRequest(req)) {
    return new Response(null, { status: 301, headers: { Location: `${url.pathname}/${url.search}` } });
  }
  const upstream = `${target.origin}${rest || "/"}${url.search}`;
  const headers = new Headers();
  req.headers.forEach((v, k) => { if (forwardable(k)) headers.append(k, v); });
  const tls = { cert: target.agent ? kubelet.cert : undefined, key: target.agent ? kubelet.key : undefined, ca: kubelet.ca, rejectUnauthorized: target.agent && !!kubelet.ca };
  if (server && isWebSocketRequest(req)) {
    const protocols = commaList(req.headers.get("sec-websocket-protocol"));
    const handlers = websocketProxy(upstream.replace(/^http/, "ws"), headers, protocols, tls);
    if (upgrade(server, req, handlers, protocols[0])) return new Response(null);
  }
  // a body of known length goes out with it (many servers take no chunked request); one without streams
  const length = req.headers.get("content-length");
  const body = length !== null ? await req.arrayBuffer() : req.body;
  let res: Response;
  try {
    res = await fetch(upstream, {
      method: req.method, headers, body, redirect: "manual", signal: req.signal, decompress: false, tls,
    } as RequestInit);
  } catch (e) {
    throw serviceUnavailable(`error trying to reach service: ${dialError(e, new URL(upstream).host)}`);
  }
  const out = new Headers(res.headers);
  const location = res.headers.get("location");
  if (location) out.set("Location", rewriteLocation(location, target.origin, prefix));
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: out });
}

/** A Location on the upstream (absolute, or an absolute path) points back through the proxy; others are left. */
export function rewriteLocation(location: string, origin: string, prefix: string): string {
  if (location.startsWith("/") && !location.startsWith("//")) return `${prefix}${location}`;
  const u = URL.parse(location);
  if (!u || u.origin !== new URL(origin).origin) return location;
  return `${prefix}${u.pathname}${u.search}${u.hash}`;
}

/** The dial failure as Go's net package words it. */
function dialError(e: unknown, host: string): string {
  const code = (e as { code?: string }).code ?? "";
  if (code === "ConnectionRefused" || code === "ECONNREFUSED") return `dial tcp ${host}: connect: connection refused`;
  return (e as Error).message ?? String(e);
}
