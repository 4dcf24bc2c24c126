// The server's Prometheus metrics (GET /metrics), named as upstream's apiserver names them.
import client from "prom-client";

export class Metrics {
  readonly registry = new client.Registry();
  readonly requests = new client.Counter({
    name: "apiserver_request_total",
    help: "Counter of apiserver requests broken out for each verb, group, version, resource, subresource, scope and HTTP response code.",
    labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "code"],
    registers: [this.registry],
  });
  readonly duration = new client.Histogram({
    name: "apiserver_request_duration_seconds",
    help: "Response latency distribution in seconds for each verb, group, version, resource, subresource and scope.",
    labelNames: ["verb", "group", "version", "resource", "subresource", "scope"],
    buckets: [0.005, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly inflight = new client.Gauge({
    name: "apiserver_current_inflight_requests",
    help: "Maximal number of currently used inflight request limit of this apiserver per request kind.",
    labelNames: ["request_kind"],
    registers: [this.registry],
  });
  readonly storageObjects = new client.Gauge({
    name: "apiserver_storage_objects",
    help: "Number of stored objects at the time of last check split by kind (polled every --etcd-count-metric-poll-period).",
    labelNames: ["resource"],
    registers: [this.registry],
  });
  readonly dbSize = new client.Gauge({
    name: "apiserver_storage_db_total_size_in_bytes",
    help: "Total size of the storage database file physically allocated in bytes (polled every --etcd-db-metric-poll-interval).",
    labelNames: ["endpoint"],
    registers: [this.registry],
  });
  readonly watchers = new client.Gauge({
    name: "apiserver_registered_watchers",
    help: "Number of currently registered watchers for a given resource.",
    labelNames: ["group", "version", "kind"],
    registers: [this.registry],
  });

  private requestChildren = new Map<string, { count: { inc(): void }; latency: { observe(v: number): void } | null }>();

  /**
   * Counts one request and its latency. Label children are looked up once per label set: resolving
   * labels on every request cost a tenth of a get's time.
   */
  recordRequest(verb: string, group: string, version: string, resource: string, subresource: string, scope: string, code: number, seconds: number) {
    const key = `${verb}|${group}|${version}|${resource}|${subresource}|${scope}|${code}`;
    let c = this.requestChildren.get(key);
    if (!c) {
      c = {
        count: this.requests.labels(verb, group, version, resource, subresource, scope, String(code)),
        latency: verb === "WATCH" ? null : this.duration.labels(verb, group, version, resource, subresource, scope),
      };
      this.requestChildren.set(key, c);
    }
    c.count.inc();
    c.latency?.observe(seconds);
  }

  private inflightChildren = { mutating: this.inflight.labels("mutating"), readonly: this.inflight.labels("readOnly") };

  /** Requests in flight of a kind (children resolved once, as for recordRequest). */
  setInflight(kind: "mutating" | "readonly", n: number) { this.inflightChildren[kind].set(n); }

  async handle(url: URL): Promise<Response | undefined> {
    if (url.pathname !== "/metrics") return undefined;
    return new Response(await this.registry.metrics(), { headers: { "Content-Type": this.registry.contentType } });
  }
}
