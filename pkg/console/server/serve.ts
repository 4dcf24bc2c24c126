// The console's web server: the page (bundled by Bun from pkg/console/web, into the binary at build time),
// the token exchange and the guarded API proxy.
import { consola } from "consola";
import page from "../web/index.html";
import type { Transport } from "../../client/transport.ts";
import { Guard, isLoopback } from "./guard.ts";
import { PROXIED, proxy, status } from "./proxy.ts";

export interface ConsoleOptions {
  transport: Transport;
  address: string;
  port: number;
  /** The per-start token; a fresh random one when unset. */
  token?: string;
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
  const server = Bun.serve({
    hostname: o.address,
    port: o.port,
    development: false,
    // watches and log streams stay open for as long as the page looks at them
    idleTimeout: 0,
    routes: {
      "/": page,
      "/login": (req) => {
        const why = guard.refuse(req);
        if (why) return status(403, "Forbidden", why);
        if (!guard.matches(new URL(req.url).searchParams.get("token") ?? undefined)) return status(401, "Unauthorized", "this is not the token of this console: open the address it printed");
        return new Response(null, { status: 303, headers: { location: "/", "set-cookie": guard.sessionCookie(), "cache-control": "no-store" } });
      },
    },
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (!PROXIED.test(path)) return status(404, "NotFound", `the console serves no ${path}`);
      const why = guard.refuse(req);
      if (why) return status(403, "Forbidden", `refused by kite console: ${why}`);
      if (!guard.hasSession(req)) return status(401, "Unauthorized", "no console session: open the address the console printed (it carries its token)");
      return proxy(o.transport, req);
    },
  });
  guard = new Guard(token, o.address, server.port!);
  const host = o.address.includes(":") ? `[${o.address}]` : o.address;
  return {
    url: `http://${host}:${server.port}/login?token=${token}`,
    stop: () => server.stop(true),
  };
}
