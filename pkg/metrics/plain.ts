// Histograms and counters kept in plain numbers on the request path and turned into prom-client's shape
// only when /metrics is scraped (prom-client hashes the label set on every observation).

export type Value = { labels: Record<string, string | number>; value: number; metricName?: string };
/** What prom-client's registry reads from a metric (its `get()`). */
export type Snapshot = { name: string; help: string; type: string; values: Value[]; aggregator: "sum" };
export interface PlainMetric { name: string; get(): Snapshot; reset(): void }

/** One histogram series as Prometheus lists it: cumulative buckets, +Inf, sum, count. */
export function histogramValues(name: string, labels: Record<string, string>, bounds: number[], perBucket: ArrayLike<number>, sum: number, count: number): Value[] {
  let cumulative = 0;
  const out: Value[] = bounds.map((le, i) => ({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: (cumulative += perBucket[i]) }));
  out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: "+Inf" }, value: count });
  out.push({ metricName: `${name}_sum`, labels, value: sum });
  out.push({ metricName: `${name}_count`, labels, value: count });
  return out;
}

interface Series { labels: Record<string, string>; buckets: Float64Array; sum: number; count: number }

export class PlainHistogram implements PlainMetric {
  private series = new Map<string, Series>();

  constructor(readonly name: string, private help: string, private labelNames: string[], private bounds: number[]) {}

  /** Label values in labelNames' order. */
  observe(values: string[], seconds: number) {
    const key = values.join("\u0000");
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: Object.fromEntries(this.labelNames.map((n, i) => [n, values[i]])), buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 }));
    let b = 0;
    while (b < this.bounds.length && seconds > this.bounds[b]) b++;
    s.buckets[b]++;
    s.sum += seconds;
    s.count++;
  }

  get(): Snapshot {
    return {
      name: this.name, help: this.help, type: "histogram", aggregator: "sum",
      values: [...this.series.values()].flatMap((s) => histogramValues(this.name, s.labels, this.bounds, s.buckets, s.sum, s.count)),
    };
  }

  reset() { this.series.clear(); }
}
