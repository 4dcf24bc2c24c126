// The scheduler's endpoints: /healthz, /livez, /readyz (each check also alone, `?verbose`, `?exclude`) and
// /metrics, on the secure port (HTTPS, delegated authentication and authorization, upstream's 401 and
// 403) and on the deprecated insecure port (plain HTTP, no authentication, as upstream serves it).
import type { X509Certificate } from "node:crypto";
import { Health } from "../../api/health.ts";
import { parseRequestInfo } from "../../api/requestinfo.ts";
import { StatusError, internal } from "../../api/status.ts";
import { AuthenticationError } from "../../auth/authenticate.ts";
import { attributesOf, forbiddenStatus, unauthorized } from "../../auth/filter.ts";
import { type Listener, serveOn, serveTLS, servingPair } from "../../serving/secure.ts";
import { type Delegation, delegation } from "./delegated.ts";
import type { SchedulerMetrics } from "./metrics.ts";
import type { ServingOptions } from "./options.ts";

type Route = (req: Request, url: URL) => Response | Promise<Response>;

const notFound = () => new Response("404 page not found\n", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" } });

const statusResponse = (e: StatusError) => new Response(JSON.stringify(e.toStatus()), { status: e.code, headers: { "Content-Type": "application/json" } });

export class SchedulerServer {
  /** The checks of /healthz, /livez and /readyz; the scheduling loop adds its own (leader election, sync). */
  readonly health = new Health(0);
  private listeners: Listener[] = [];
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
  private secured(d: Delegation, route: Route) {
    return async (req: Request, url: URL, certificates: X509Certificate[] | undefined): Promise<Response> => {
      try {
        const info = parseRequestInfo(req.method, url);
        let user;
        try {
          user = (await d.authn.authenticate({ headers: req.headers, clientCertificates: certificates })).user;
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

  private serve(l: Listener): number {
    this.listeners.push(l);
    return l.port;
  }

  async start(): Promise<void> {
    const { secure, insecure } = this.o;
    if (secure) {
      const d = await delegation(this.o.authentication, this.o.authorization);
      this.warnings.push(...d.warnings);
      // the generated pair is kube-scheduler.crt/.key in --cert-dir, or made in memory without one
      const tls = await servingPair({ ...secure, name: "kube-scheduler", hosts: ["localhost", "127.0.0.1"] });
      const secured = this.secured(d, this.route(true, true));
      this.securePort = this.serve(serveTLS(secure, tls, d.clientCAs, (req, certificates) => secured(req, new URL(req.url), certificates)));
    }
    const same = insecure.healthz && insecure.metrics && insecure.healthz.host === insecure.metrics.host && insecure.healthz.port === insecure.metrics.port;
    const plain = (route: Route) => (req: Request) => route(req, new URL(req.url));
    if (insecure.healthz) this.insecurePorts.healthz = this.serve(serveOn(insecure.healthz, plain(this.route(true, !!same))));
    if (same) this.insecurePorts.metrics = this.insecurePorts.healthz;
    else if (insecure.metrics) this.insecurePorts.metrics = this.serve(serveOn(insecure.metrics, plain(this.route(false, true))));
  }

  async stop(): Promise<void> {
    await Promise.all(this.listeners.map((l) => l.stop()));
  }
}
