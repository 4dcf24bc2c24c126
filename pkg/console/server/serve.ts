// The console's web server: the page (bundled by Bun from pkg/console/web, into the binary at build time),
// the token exchange and the guarded API proxy.
import { consola } from "consola";
import page from "../web/index.html";
import type { Transport } from "../../client/transport.ts";
import { Guard, isLoopback, isWildcard } from "./guard.ts";
import { PROXIED, proxy, status } from "./proxy.ts";
import { type Relay, relayHandler } from "./wsproxy.ts";
import { MUX_PROTOCOL, type Mux, muxHandler } from "./streammux.ts";
import type { ServerWebSocket, WebSocketHandler } from "bun";

/** The console's two kinds of WebSocket, told apart by their data: a terminal's relay, or the page's streams. */
function socketHandlers(relay: WebSocketHandler<Relay>, mux: WebSocketHandler<Mux>): WebSocketHandler<Relay | Mux> {
  const pick = (ws: ServerWebSocket<Relay | Mux>) => ("streams" in ws.data ? [mux, ws] : [relay, ws]) as [WebSocketHandler<any>, ServerWebSocket<any>];
  return {
    open(ws) { const [h, w] = pick(ws); h.open?.(w); },
    message(ws, m) { const [h, w] = pick(ws); h.message?.(w, m); },
    close(ws, code, reason) { const [h, w] = pick(ws); h.close?.(w, code, reason); },
  };
}

/** The page's terminal asks for this subprotocol; the API server speaks it too (and v5, which the page does not need). */
const EXEC_PROTOCOL = "v4.channel.k8s.io";

export interface ConsoleOptions {
  transport: Transport;
  address: string;
  port: number;
  /** The per-start token; a fresh random one when unset. */
  token?: string;
  /** The namespace the page opens in (the kubeconfig context's, or -n). */
  namespace?: string;
}

export interface RunningConsole {
  /** The address to open: it carries the token, which the page trades for its session cookie. */
  url: string;
  stop(): Promise<void>;
}

/** Serves the console; throws when the address cannot be bound. */
export function startConsole(o: ConsoleOptions): RunningConsole {
  if (!isLoopback(o.address)) consola.warn(`the console serves on ${o.address}, which is not a loopback address: other machines can reach it (each request still needs the token)`);
  const token = o.token ?? Guard.newToken();
  let guard: Guard;
  const server = Bun.serve<Relay | Mux>({
    hostname: o.address,
    port: o.port,
    development: false,
    // a port in use is an error, not shared with the process that has it
    reusePort: false,
    // watches and log streams stay open for as long as the page looks at them
    idleTimeout: 0,
    routes: {
      "/": page,
      "/login": (req: Request) => {
        const why = guard.refuse(req);
        if (why) return status(403, "Forbidden", why);
        if (!guard.matches(new URL(req.url).searchParams.get("token") ?? undefined)) return status(401, "Unauthorized", "this is not the token of this console: open the address it printed");
        const location = o.namespace ? `/#${new URLSearchParams({ ns: o.namespace })}` : "/";
        return new Response(null, { status: 303, headers: { location, "set-cookie": guard.sessionCookie(), "cache-control": "no-store" } });
      },
    },
    websocket: socketHandlers(relayHandler(o.transport), muxHandler(o.transport)),
    fetch(req, srv) {
      const path = new URL(req.url).pathname;
      if (!PROXIED.test(path) && path !== "/streams") return status(404, "NotFound", `the console serves no ${path}`);
      const why = guard.refuse(req);
      if (why) return status(403, "Forbidden", `refused by kite console: ${why}`);
      if (!guard.hasSession(req)) return status(401, "Unauthorized", "no console session: open the address the console printed (it carries its token)");
      if (path === "/streams") {
        if (srv.upgrade(req, { data: { streams: new Map() }, headers: { "Sec-WebSocket-Protocol": MUX_PROTOCOL } })) return undefined;
        return status(400, "BadRequest", "Upgrade request required");
      }
      if (req.headers.get("upgrade")?.toLowerCase() === "websocket") {
        const offered = (req.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
        if (!offered.includes(EXEC_PROTOCOL)) return status(400, "BadRequest", `the console relays WebSockets of subprotocol ${EXEC_PROTOCOL} only`);
        const url = new URL(req.url);
        if (srv.upgrade(req, { data: { path: url.pathname + url.search, protocol: EXEC_PROTOCOL, pending: [] }, headers: { "Sec-WebSocket-Protocol": EXEC_PROTOCOL } })) return undefined;
        return status(400, "BadRequest", "Upgrade request required");
      }
      return proxy(o.transport, req);
    },
  });
  guard = new Guard(token, o.address, server.port!);
  // bound to every address, the address printed is loopback's (other machines use one of this machine's)
  const host = isWildcard(o.address) ? "127.0.0.1" : o.address.includes(":") ? `[${o.address}]` : o.address;
  return {
    url: `http://${host}:${server.port}/login?token=${token}`,
    stop: () => server.stop(true),
  };
}
