// apiserver_request_total and apiserver_request_duration_seconds, counted in plain numbers on the
// request path and turned into prom-client's shape only when /metrics is scraped: prom-client's own
// counters hash their label set on every increment, which cost ~10 µs per request.
import { type Snapshot, type Value, histogramValues } from "./plain.ts";

const NAMES = ["verb", "group", "version", "resource", "subresource", "scope"] as const;
export const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];

interface Series {
  labels: Record<string, string>;
  /** requests by response code */
  codes: Map<number, number>;
  /** per bucket (not cumulative); the last slot counts what exceeds every bound */
  buckets: Float64Array;
  sum: number;
  count: number;
}


export class RequestMetrics {
  private series = new Map<string, Series>();

  /** Counts one request (a watch's duration is its lifetime, so it gets no latency, as upstream). */
  record(labels: readonly string[], code: number, seconds: number, latency: boolean) {
    const key = labels.join("|");
    let s = this.series.get(key);
    if (!s) {
      s = { labels: Object.fromEntries(NAMES.map((n, i) => [n, labels[i]])), codes: new Map(), buckets: new Float64Array(BUCKETS.length + 1), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    s.codes.set(code, (s.codes.get(code) ?? 0) + 1);
    if (!latency) return;
    let b = 0;
    while (b < BUCKETS.length && seconds > BUCKETS[b]) b++;
    s.buckets[b]++;
    s.sum += seconds;
    s.count++;
  }

  /** The metric objects to register with a prom-client Registry. */
  metrics(): { name: string; get(): Snapshot; reset(): void }[] {
    const reset = () => this.series.clear();
    return [
      {
        name: "apiserver_request_total",
        reset,
        get: () => ({
          name: "apiserver_request_total", type: "counter", aggregator: "sum",
          help: "Counter of apiserver requests broken out for each verb, group, version, resource, subresource, scope and HTTP response code.",
          values: [...this.series.values()].flatMap((s) => [...s.codes].map(([code, value]) => ({ labels: { ...s.labels, code }, value }))),
        }),
      },
      {
        name: "apiserver_request_duration_seconds",
        reset,
        get: () => ({
          name: "apiserver_request_duration_seconds", type: "histogram", aggregator: "sum",
          help: "Response latency distribution in seconds for each verb, group, version, resource, subresource and scope.",
          values: [...this.series.values()].filter((s) => s.count > 0).flatMap((s) => histogram(s)),
        }),
      },
    ];
  }
}

function histogram(s: Series): Value[] {
  return histogramValues("apiserver_request_duration_seconds", s.labels, BUCKETS, s.buckets, s.sum, s.count);
}
