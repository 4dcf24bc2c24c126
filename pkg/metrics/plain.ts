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

/**
 * Series found by their label values one at a time (a map per label): the values are mostly the same
 * few strings each time, whose hashes the engine keeps, so no key is built per observation.
 */
class SeriesIndex<T> {
  private root = new Map<string, unknown>();
  /** In the order first observed, as /metrics lists them. */
  readonly all: T[] = [];

  constructor(private make: (values: string[]) => T) {}

  get(values: string[]): T {
    let node = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = node.get(values[i]) as Map<string, unknown> | undefined;
      if (!next) node.set(values[i], (next = new Map()));
      node = next;
    }
    let s = node.get(values[last]) as T | undefined;
    if (!s) {
      node.set(values[last], (s = this.make(values)));
      this.all.push(s);
    }
    return s;
  }
}

export class PlainHistogram implements PlainMetric {
  private series = this.index();

  constructor(readonly name: string, private help: string, private labelNames: string[], private bounds: number[]) {}

  private index() {
    return new SeriesIndex<Series>((values) => ({ labels: Object.fromEntries(this.labelNames.map((n, i) => [n, values[i]])), buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 }));
  }

  /** Label values in labelNames' order. */
  observe(values: string[], seconds: number) {
    const s = this.series.get(values);
    let b = 0;
    while (b < this.bounds.length && seconds > this.bounds[b]) b++;
    s.buckets[b]++;
    s.sum += seconds;
    s.count++;
  }

  get(): Snapshot {
    return {
      name: this.name, help: this.help, type: "histogram", aggregator: "sum",
      values: this.series.all.flatMap((s) => histogramValues(this.name, s.labels, this.bounds, s.buckets, s.sum, s.count)),
    };
  }

  reset() { this.series = this.index(); }
}

/** Counters (or gauges, type "gauge") by label values, added to in place. */
export class PlainCounter implements PlainMetric {
  private series = new Map<string, Value>();

  constructor(readonly name: string, private help: string, private labelNames: string[], private type: "counter" | "gauge" = "counter") {}

  add(values: string[], n = 1) {
    const key = values.join("\u0000");
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: Object.fromEntries(this.labelNames.map((l, i) => [l, values[i]])), value: 0 }));
    s.value += n;
  }

  get(): Snapshot {
    return { name: this.name, help: this.help, type: this.type, aggregator: "sum", values: [...this.series.values()] };
  }

  reset() { this.series.clear(); }
}
