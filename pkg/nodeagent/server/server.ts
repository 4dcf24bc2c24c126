// The agent's listeners, as the kubelet's: --port (HTTPS, authenticated and authorized: /healthz, /pods,
// /containerLogs, /exec, /attach, /portForward, and Kite's submission source: POST /pods, DELETE /pods/{namespace}/{name}), --read-only-port (plain HTTP, no authentication: /healthz, /pods) and --healthz-port
// — both of the first also the resource metrics: /stats/summary, /metrics/resource (../stats/)
// (plain HTTP: /healthz only).
import { hostname } from "node:os";
import type { Server } from "bun";
import { Health } from "../../api/health.ts";
import type { ClientConfig } from "../../client/kubeconfig.ts";
import { type Listener, serveOn, serveTLS, servingPair } from "../../serving/secure.ts";
import { AgentAuth } from "./auth.ts";
import { attachRequest } from "./attach.ts";
import { execRequest } from "./exec.ts";
import { portForwardRequest } from "./portforward.ts";
import { type AgentPods, containerLogs, podList, submitPods, withdrawPod } from "./handlers.ts";
import type { AgentServingOptions } from "./options.ts";
import { resourceMetrics } from "../stats/resource.ts";
import { CpuRates, summary } from "../stats/summary.ts";

const notFound = () => new Response("404 page not found\n", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" } });

type Route = (req: Request, url: URL, server?: Server<undefined>) => Response | Promise<Response>;

export class AgentServers {
  private readonly health = new Health(0);
  private readonly listeners: Listener[] = [];
  /** The --port listener, where a rotated serving certificate goes. */
  private main?: Listener;
  /** Where each listener ended up (--port 0 picks a free port). */
  port = 0;
  readOnlyPort?: number;
  healthzPort?: number;
  private readonly rates = new CpuRates();
  private readonly startTime = new Date().toISOString().replace(/\.\d+Z$/, "Z");

  /** `synced()`: the agent has its pods (upstream's syncloop check). */
  constructor(private readonly o: AgentServingOptions, private readonly api: ClientConfig, private readonly nodeName: string,
    private readonly nodeIP: string, private readonly view: AgentPods, synced: () => boolean) {
    this.health.add({ name: "ping", in: ["healthz"], run: async () => null });
    this.health.add({ name: "log", in: ["healthz"], run: async () => null });
    this.health.add({ name: "syncloop", in: ["healthz"], run: async () => (synced() ? null : "the pods are not synced yet") });
  }

  private route(withLogs: boolean, healthOnly = false): Route {
    return async (req, url, server) => {
      const path = url.pathname;
      if (path === "/healthz" || path.startsWith("/healthz/")) return (await this.health.handle(url)) ?? notFound();
      if (healthOnly) return notFound();
      // the submission source, on the authenticated port only
      if (withLogs && req.method === "POST" && (path === "/pods" || path === "/pods/")) return submitPods(this.view, req);
      if (withLogs && req.method === "DELETE" && path.startsWith("/pods/")) return withdrawPod(this.view, path);
      if (withLogs && server && path.startsWith("/exec/") && (req.method === "GET" || req.method === "POST")) return execRequest(this.view, path, url.searchParams, req, server);
      if (withLogs && server && path.startsWith("/attach/") && (req.method === "GET" || req.method === "POST")) return attachRequest(this.view, path, url.searchParams, req, server);
      if (withLogs && server && path.startsWith("/portForward/") && (req.method === "GET" || req.method === "POST")) return portForwardRequest(this.view, path, url.searchParams, req, server);
      if (req.method !== "GET") return notFound();
      if (path === "/pods" || path === "/pods/") return podList(this.view);
      if (withLogs && path.startsWith("/containerLogs/")) return containerLogs(this.view, path, url.searchParams);
      if (path === "/stats/summary") return Response.json(this.summary());
      if (path === "/metrics/resource") return new Response(resourceMetrics(this.summaryOrNone(), Date.now()), { headers: { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" } });
      return notFound();
    };
  }

  private summary() {
    return summary(this.nodeName, this.view.rootDir, this.view.workers(), this.rates, this.startTime);
  }

  private summaryOrNone() {
    try { return this.summary(); } catch { return undefined; }
  }

  /**
   * Listens on every configured port; a port that cannot be had throws one line (StartupError). `issued`:
   * a serving certificate the cluster issued (--rotate-server-certificates), served instead of the files or
   * the self-signed one.
   */
  async start(issued?: { cert: string; key: string }): Promise<void> {
    const o = this.o;
    const auth = new AgentAuth(o, this.api, this.nodeName);
    const tls = this.withOptions(issued ?? (await servingPair({ ...o, name: "kubelet", hosts: [hostname(), this.nodeName, this.nodeIP] })));
    const main = this.route(true);
    const listen = (l: Listener) => (this.listeners.push(l), l.port);
    this.port = listen(this.main = serveTLS(o.main, tls, auth.clientCAs, async (req, certificates, server) => {
      const url = new URL(req.url);
      return (await auth.check(req, url.pathname, certificates)) ?? main(req, url, server);
    }));
    const plain = (route: Route) => (req: Request) => route(req, new URL(req.url));
    if (o.readOnly) this.readOnlyPort = listen(serveOn(o.readOnly, plain(this.route(false))));
    if (o.healthz) this.healthzPort = listen(serveOn(o.healthz, plain(this.route(false, true))));
  }

  /** Serves a newly issued certificate on --port to the connections opened from now on. */
  serveCertificate(pair: { cert: string; key: string }): void {
    this.main?.reload(this.withOptions(pair));
  }

  private withOptions(pair: { cert: string; key: string }) {
    return { cert: pair.cert, key: pair.key, minVersion: this.o.tlsMinVersion, ciphers: this.o.ciphers };
  }

  async stop(): Promise<void> {
    await Promise.all(this.listeners.map((l) => l.stop()));
  }
}
