// What the components' own servers share (the scheduler's, the node agent's): a serving certificate from
// files or generated once into a cert dir, plain listeners, and an HTTPS listener that shows each
// request's client certificate — through the TLS front when client CAs are given, since Bun.serve cannot.
import type { X509Certificate } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import { writePrivateFile } from "../pki/private.ts";
import { listening } from "./listen.ts";
import { PeerListeners } from "./peerlisteners.ts";
import { TlsFront } from "./tlsfront.ts";
import { websocketDispatch } from "./websocket.ts";

export interface HostPort { host: string; port: number }
export interface TlsPair {
  cert: string;
  key: string;
  /** Bun's minVersion (0x303: TLS 1.2) and an OpenSSL cipher list, when restricted. */
  minVersion?: number;
  ciphers?: string;
}

export interface ServingCertOptions {
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Where a generated pair is kept as NAME.crt/NAME.key (made once); absent, generated in memory. */
  certDir?: string;
  name: string;
  /** The names and addresses the generated certificate is for. */
  hosts: string[];
}

/**
 * The given files, else NAME.crt/.key in the cert dir (generated and self-signed the first time), as
 * upstream's components do. The certificate library is loaded only to generate one.
 */
export async function servingPair(o: ServingCertOptions): Promise<TlsPair> {
  if (o.tlsCertFile && o.tlsPrivateKeyFile) return { cert: readFileSync(o.tlsCertFile, "utf8"), key: readFileSync(o.tlsPrivateKeyFile, "utf8") };
  const files = o.certDir && { cert: join(o.certDir, `${o.name}.crt`), key: join(o.certDir, `${o.name}.key`) };
  if (files) {
    try {
      return { cert: readFileSync(files.cert, "utf8"), key: readFileSync(files.key, "utf8") };
    } catch { /* not made yet */ }
  }
  const stamp = Math.floor(Date.now() / 1000);
  const host = o.hosts[0] ?? "localhost";
  const { generateServingCerts } = await import("../pki/certs.ts");
  const made = generateServingCerts(`${host}-ca@${stamp}`, `${host}@${stamp}`, o.hosts);
  const pair = { cert: made.cert + made.ca, key: made.key };
  if (files) {
    mkdirSync(o.certDir!, { recursive: true, mode: 0o700 });
    writeFileSync(files.cert, pair.cert);
    writePrivateFile(files.key, pair.key);
  }
  return pair;
}

type Handler = (req: Request, server: Server<undefined>) => Response | Promise<Response>;

export interface Listener {
  port: number;
  stop(): Promise<void>;
  /**
   * Serves a new certificate to the connections opened from now on (a rotated serving certificate): the
   * port is listened on again; open connections go on with the one they have.
   */
  reload(tls: TlsPair): void;
}

/** Bun.serve's options every listener here shares. */
const served = (handler: Handler) => ({
  development: false,
  fetch: handler,
  // streams a handler upgrades carry their own handlers (websocket.ts)
  websocket: websocketDispatch,
  error: (e: Error) => new Response(`Internal Server Error: ${e.message}\n`, { status: 500 }),
});

/** A listener (HTTPS with `tls`); a failure to listen is one line naming the port. */
export function serveOn(where: HostPort & { tls?: TlsPair }, handler: Handler): Listener {
  const open = (port: number, tls: TlsPair | undefined) => listening(where.host, port, () => Bun.serve<any>({ hostname: where.host, port, tls, reusePort: false, ...served(handler) }));
  let servers = [open(where.port, where.tls)];
  const port = servers[0].port!;
  return {
    port,
    stop: async () => { await Promise.all(servers.map((s) => s.stop(true))); },
    reload(tls) {
      void servers[0].stop(false);
      servers = [open(port, tls), ...servers];
    },
  };
}

/**
 * HTTPS on `where`; `handler` gets each request with the client certificate its connection showed. With
 * client CAs, the TLS front terminates TLS and pipes each connection to the HTTP server of its peer, on a
 * Unix socket (peerlisteners.ts).
 */
export function serveTLS(where: HostPort, tls: TlsPair, clientCAs: string[], handler: (req: Request, certificates: X509Certificate[] | undefined, server: Server<undefined>) => Response | Promise<Response>): Listener {
  if (!clientCAs.length) return serveOn({ ...where, tls }, (req, srv) => handler(req, undefined, srv));
  // after a reload, the connections of the fronts before are still served
  let fronts: TlsFront[] = [];
  const behind = new PeerListeners((unix, peer) => Bun.serve<any>({ unix, ...served((req, srv) => handler(req, peer.certificates, srv)) }));
  const open = (port: number, pair: TlsPair) => listening(where.host, port, () => new TlsFront({ hostname: where.host, port, tls: { ...pair, ca: clientCAs }, upstreams: behind }));
  try {
    fronts = [open(where.port, tls)];
  } catch (e) {
    void behind.stop();
    throw e;
  }
  const port = fronts[0].port;
  return {
    port,
    async stop() {
      for (const f of fronts) f.stop();
      await behind.stop();
      await Promise.all(fronts.map((f) => f.drain(0)));
    },
    reload(pair) {
      fronts[0].stop();
      fronts = [open(port, pair), ...fronts];
    },
  };
}
