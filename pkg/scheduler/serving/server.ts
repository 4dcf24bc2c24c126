// The scheduler's endpoints: /healthz, /livez, /readyz (each check also alone, `?verbose`, `?exclude`) and
// /metrics, on the secure port (HTTPS, delegated authentication and authorization, upstream's 401 and
// 403) and on the deprecated insecure port (plain HTTP, no authentication, as upstream serves it).
import type { X509Certificate } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import { Health } from "../../api/health.ts";
import { parseRequestInfo } from "../../api/requestinfo.ts";
import { StatusError, internal } from "../../api/status.ts";
import { AuthenticationError } from "../../auth/authenticate.ts";
import { attributesOf, forbiddenStatus, unauthorized } from "../../auth/filter.ts";
import { generateServingCerts } from "../../pki/certs.ts";
import { writePrivateFile } from "../../pki/private.ts";
import { listening } from "../../serving/listen.ts";
import { type Peer, TlsFront } from "../../serving/tlsfront.ts";
import { type Delegation, delegation } from "./delegated.ts";
import type { SchedulerMetrics } from "./metrics.ts";
import type { HostPort, ServingOptions } from "./options.ts";

type Route = (req: Request, url: URL) => Response | Promise<Response>;

const notFound = () => new Response("404 page not found\n", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" } });

const statusResponse = (e: StatusError) => new Response(JSON.stringify(e.toStatus()), { status: e.code, headers: { "Content-Type": "application/json" } });

/** The serving certificate: the given files, else kube-scheduler.crt/.key in --cert-dir (made once), else made in memory. */
function servingCert(o: NonNullable<ServingOptions["secure"]>): { cert: string; key: string } {
  if (o.tlsCertFile && o.tlsPrivateKeyFile) return { cert: readFileSync(o.tlsCertFile, "utf8"), key: readFileSync(o.tlsPrivateKeyFile, "utf8") };
  const files = o.certDir && { cert: join(o.certDir, "kube-scheduler.crt"), key: join(o.certDir, "kube-scheduler.key") };
  if (files) {
    try {
      return { cert: readFileSync(files.cert, "utf8"), key: readFileSync(files.key, "utf8") };
    } catch { /* not made yet */ }
  }
  const stamp = Math.floor(Date.now() / 1000);
  const made = generateServingCerts(`localhost-ca@${stamp}`, `localhost@${stamp}`, ["localhost", "127.0.0.1"]);
  const pair = { cert: made.cert + made.ca, key: made.key };
  if (files) {
    mkdirSync(o.certDir!, { recursive: true, mode: 0o700 });
    writeFileSync(files.cert, pair.cert);
    writePrivateFile(files.key, pair.key);
  }
  return pair;
}

export class SchedulerServer {
  /** The checks of /healthz, /livez and /readyz; the scheduling loop adds its own (leader election, sync). */
  readonly health = new Health(0);
  private servers: Server<undefined>[] = [];
  private front?: TlsFront;
  /** Where each listener ended up (port 0 picks one): secure, and the insecure health and metrics ports. */
  securePort?: number;
  insecurePorts: { healthz?: number; metrics?: number } = {};
  warnings: string[] = [];

  constructor(private readonly o: ServingOptions, private readonly metrics: SchedulerMetrics) {
    this.health.add({ name: "ping", in: ["healthz", "livez", "readyz"], run: async () => null });
  }

  private route(serveHealth: boolean, serveMetrics: boolean): Route {
    return (_req, url) => {
      if (serveMetrics && url.pathname === "/metrics") return this.metrics.text();
      if (serveHealth) return this.health.handle(url).then((r) => r ?? notFound());
      return notFound();
    };
  }

  /** Authenticates and authorizes each request as upstream's filters do, then routes it. */
  private secured(d: Delegation, route: Route, certificates: (req: Request) => X509Certificate[] | undefined): Route {
    return async (req, url) => {
      try {
        const info = parseRequestInfo(req.method, url);
        let user;
        try {
          user = (await d.authn.authenticate({ headers: req.headers, clientCertificates: certificates(req) })).user;
        } catch (e) {
          throw e instanceof AuthenticationError ? unauthorized() : e;
        }
        const attrs = attributesOf(user, info);
        const decision = await d.authz.authorize(attrs);
        if (decision.decision !== "allow") throw decision.error ? internal(decision.error) : forbiddenStatus(attrs, decision.reason);
      } catch (e) {
        if (e instanceof StatusError) return statusResponse(e);
        throw e;
      }
      return route(req, url);
    };
  }

  private serve(where: HostPort & { tls?: { cert: string; key: string } }, route: Route, guard?: (req: Request, server: Server<undefined>) => boolean): Server<undefined> {
    const server = listening(where.host, where.port, () => Bun.serve({
      hostname: where.host, port: where.port, tls: where.tls, reusePort: false, development: false,
      fetch: (req, srv) => (guard && !guard(req, srv) ? new Response(null, { status: 403, headers: { Connection: "close" } }) : route(req, new URL(req.url))),
      error: (e) => new Response(`Internal Server Error: ${e.message}\n`, { status: 500 }),
    }));
    this.servers.push(server);
    return server;
  }

  async start(): Promise<void> {
    const { secure, insecure } = this.o;
    if (secure) {
      const d = await delegation(this.o.authentication, this.o.authorization);
      this.warnings.push(...d.warnings);
      const tls = servingCert(secure);
      const route = this.route(true, true);
      if (d.clientCAs.length) {
        // Client certificates: Bun.serve cannot show them, so the TLS front terminates TLS and the HTTP
        // server behind it, on loopback, serves only the front's connections.
        const peers = new WeakMap<Request, Peer>();
        const behind = this.serve({ host: "127.0.0.1", port: 0 }, this.secured(d, route, (req) => peers.get(req)?.certificates), (req, srv) => {
          const peer = this.front?.peer(srv.requestIP(req));
          if (peer) peers.set(req, peer);
          return !!peer;
        });
        this.front = listening(secure.host, secure.port, () => new TlsFront({ hostname: secure.host, port: secure.port, tls: { ...tls, ca: d.clientCAs }, upstreamPort: behind.port! }));
        this.securePort = this.front.port;
      } else {
        this.securePort = this.serve({ ...secure, tls }, this.secured(d, route, () => undefined)).port;
      }
    }
    const same = insecure.healthz && insecure.metrics && insecure.healthz.host === insecure.metrics.host && insecure.healthz.port === insecure.metrics.port;
    if (insecure.healthz) this.insecurePorts.healthz = this.serve(insecure.healthz, this.route(true, !!same)).port;
    if (same) this.insecurePorts.metrics = this.insecurePorts.healthz;
    else if (insecure.metrics) this.insecurePorts.metrics = this.serve(insecure.metrics, this.route(false, true)).port;
  }

  async stop(): Promise<void> {
    this.front?.stop();
    await Promise.all(this.servers.map((s) => s.stop(true)));
    await this.front?.drain(0);
  }
}
