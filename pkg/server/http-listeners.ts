// The API server's HTTP listeners. Without client certificates to read: one Bun.serve on the secure port.
// With them (--client-ca-file, --requestheader-client-ca-file): the TLS front on the secure port, one
// Bun.serve per peer behind it on a Unix socket, and on loopback the checks of the SPDY upgrades the front
// keeps, and nothing else.
import { readFileSync } from "node:fs";
import type { Server } from "bun";
import { type RawPath, rawSegmentRoutes } from "../api/rawpath.ts";
import type { ApiHandler } from "../api/server.ts";
import type { KubeletClient } from "../api/handlers/podlog.ts";
import { CHECK_HEADER, TAKEN_UPGRADES, UpgradeChecks, spdyUpgrade } from "../api/streaming/spdyupgrade.ts";
import { PeerListeners } from "../serving/peerlisteners.ts";
import { type Peer, type TakenConnection, TlsFront } from "../serving/tlsfront.ts";
import { websocketDispatch } from "../serving/websocket.ts";
import { type ServingOptions, sniTLS } from "./serving-options.ts";
import { listening, step } from "./startup-errors.ts";

/**
 * Keep-alive connections idle this long are closed, as upstream's 90 s (Bun's limit is 255).
 * KITE_IDLE_TIMEOUT_SECONDS shortens it (the test of this behaviour would otherwise wait 90 s).
 */
const IDLE_TIMEOUT_SECONDS = Math.min(255, Math.max(1, Number(process.env.KITE_IDLE_TIMEOUT_SECONDS) || 90));

/** Who sent each request that came through the TLS front: what the handler's authentication reads. */
export class FrontPeers {
  /** Each request's peer: the listener it came on, or its upgrade check's. */
  private readonly peers = new WeakMap<Request, Peer>();
  /** SPDY upgrades the front keeps, checked through the filter chain first (spdyupgrade.ts). */
  readonly checks = new UpgradeChecks();
  private readonly checked = new WeakSet<Request>();

  set(req: Request, peer: Peer) { this.peers.set(req, peer); }
  markChecked(req: Request) { this.checked.add(req); }
  readonly certificates = (req: Request) => this.peers.get(req)?.certificates;
  readonly address = (req: Request) => this.peers.get(req)?.address;
  readonly isUpgradeCheck = (req: Request) => this.checked.has(req);
}

export interface ListenOptions {
  bindAddress: string;
  securePort: number;
  /** The serving certificate and TLS settings (--tls-*). */
  tls: { cert: string; key: string; minVersion?: number; ciphers?: string };
  serving: ServingOptions;
  /** The client CA files; none: no front. */
  caFiles: string[];
  kubelet: KubeletClient;
}

export interface Listeners {
  /** The secure port's server, or (behind the front) the loopback listener of the upgrade checks. */
  http: Server<undefined>;
  front?: TlsFront;
  behind?: PeerListeners;
}

type Where = { hostname: string; port: number; tls?: Bun.TLSOptions | Bun.TLSOptions[] };
type ServeRequest = (req: Request, server: Server<undefined>, raw: RawPath) => Response | Promise<Response>;

function serve(where: Where | { unix: string }, serveRequest: ServeRequest): Server<undefined> {
  return Bun.serve({
    // (Bun's types leave idleTimeout and reusePort out for a Unix socket; idleTimeout applies there too)
    ...(where as Where),
    // Not development mode: no HTML error pages, no code excerpt logged per closed stream.
    development: false,
    idleTimeout: IDLE_TIMEOUT_SECONDS,
    // Said explicitly: with TLS, Bun sets SO_REUSEPORT by default, and a second server on the port would
    // share it silently instead of being refused.
    reusePort: false,
    // Bodies are read (and refused past 3 MiB with a Status) by readBody; Bun's own limit would answer a bare 413.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    routes: rawSegmentRoutes(serveRequest),
    // exec upgrades carry their own handlers (websocket.ts); the requests themselves carry no data
    websocket: websocketDispatch as unknown as Bun.WebSocketHandler<undefined>,
    fetch: (req, server) => serveRequest(req, server, "unmatched"),
    error: (e) => new Response(JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: e.message, reason: "InternalError", code: 500 }), { status: 500 }),
  });
}

/** Starts the listeners; a port that cannot be taken fails start-up with one line (startup-errors.ts). */
export async function listen(o: ListenOptions, handler: ApiHandler, peers: FrontPeers): Promise<Listeners> {
  if (!o.caFiles.length) {
    const http = listening(o.bindAddress, o.securePort, () => serve({ hostname: o.bindAddress, port: o.securePort, tls: sniTLS(o.tls, o.serving.sniCerts) }, (req, server, raw) => handler.handle(req, server, raw)));
    return { http };
  }
  const ca = await step("client CA files", () => o.caFiles.map((f) => readFileSync(f, "utf8")));
  const http = await step("loopback listener", () => serve({ hostname: "127.0.0.1", port: 0 }, (req, server, raw) => {
    const peer = peers.checks.take(req.headers.get(CHECK_HEADER));
    if (!peer) return new Response(null, { status: 403, headers: { Connection: "close" } });
    peers.markChecked(req);
    peers.set(req, peer);
    return handler.handle(req, server, raw);
  }));
  const upstreamPort = http.port!;
  const behind = new PeerListeners((unix, peer) => serve({ unix }, (req, server, raw) => {
    peers.set(req, peer);
    return handler.handle(req, server, raw);
  }));
  const takeOver = { upgrade: TAKEN_UPGRADES, run: (head: Buffer, peer: Peer, conn: TakenConnection) => void spdyUpgrade(head, peer, conn, upstreamPort, peers.checks, o.kubelet) };
  try {
    const front = listening(o.bindAddress, o.securePort, () => new TlsFront({ hostname: o.bindAddress, port: o.securePort, tls: { ...o.tls, ca }, upstreams: behind, takeOver }));
    return { http, front, behind };
  } catch (e) {
    await Promise.all([http.stop(true), behind.stop()]);
    throw e;
  }
}
