// The server's Prometheus metrics (GET /metrics), named as upstream's apiserver names them.
import client from "prom-client";
import { applyMetricsOptions } from "./options.ts";
import { RequestMetrics } from "./requests.ts";
import { AdmissionMetrics } from "./admission.ts";

export class Metrics {
  readonly registry = new client.Registry();
  private requests = new RequestMetrics();
  private inflightNow = { mutating: 0, readonly: 0 };
  readonly inflight = new client.Gauge({
    name: "apiserver_current_inflight_requests",
    help: "Maximal number of currently used inflight request limit of this apiserver per request kind.",
    labelNames: ["request_kind"],
    registers: [this.registry],
    // read at scrape time: setting a labelled gauge on every request hashed its labels each time
    collect: () => {
      this.inflight.labels("mutating").set(this.inflightNow.mutating);
      this.inflight.labels("readOnly").set(this.inflightNow.readonly);
    },
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

  readonly deprecatedApis = new client.Gauge({
    name: "apiserver_requested_deprecated_apis",
    help: "Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.",
    labelNames: ["group", "version", "resource", "subresource", "removed_release"],
    registers: [this.registry],
  });
  readonly admission = new AdmissionMetrics(this.registry);

  constructor() {
    for (const m of this.requests.metrics()) this.registry.registerMetric(m as never);
  }

  /** Counts one request and its latency (cheap: see RequestMetrics). */
  recordRequest(verb: string, group: string, version: string, resource: string, subresource: string, scope: string, code: number, seconds: number) {
    this.requests.record([verb, group, version, resource, subresource, scope], code, seconds, verb !== "WATCH");
  }

  /** A deprecated version was requested: its series is 1 from then on, as upstream's. */
  deprecatedRequested(group: string, version: string, resource: string, subresource: string, removedRelease: string) {
    this.deprecatedApis.labels(group, version, resource, subresource, removedRelease).set(1);
  }

  /** Requests in flight of a kind. */
  setInflight(kind: "mutating" | "readonly", n: number) { this.inflightNow[kind] = n; }

  async handle(url: URL): Promise<Response | undefined> {
    if (url.pathname !== "/metrics") return undefined;
    return new Response(applyMetricsOptions(await this.registry.metrics()), { headers: { "Content-Type": this.registry.contentType } });
  }
}
