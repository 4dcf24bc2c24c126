// The scheduler's Prometheus metrics (GET /metrics), named and described as upstream v1.21's, plus the
// process metrics. The scheduling loop reports each attempt with attempt(); pending pods are read from the
// queue at scrape time, so the hot path never touches a gauge.
import client from "prom-client";
import { applyMetricsOptions } from "../../metrics/options.ts";

export type AttemptResult = "scheduled" | "unschedulable" | "error";
export interface PendingPods { active: number; backoff: number; unschedulable: number }

/** Labels in upstream's order (its client sorts them by name), so a series reads as upstream's does. */
const ATTEMPT_LABELS = ["profile", "result"];
/** upstream's buckets: exponential from 1 ms, doubling, 15 of them. */
const E2E_BUCKETS = client.exponentialBuckets(0.001, 2, 15);

export class SchedulerMetrics {
  readonly registry = new client.Registry();
  /** Read at each scrape; set by the scheduling queue. */
  pendingPods: () => PendingPods = () => ({ active: 0, backoff: 0, unschedulable: 0 });

  private readonly attempts = new client.Counter({
    name: "scheduler_schedule_attempts_total",
    help: "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
    labelNames: ATTEMPT_LABELS,
    registers: [this.registry],
  });
  private readonly e2e = new client.Histogram({
    name: "scheduler_e2e_scheduling_duration_seconds",
    help: "E2e scheduling latency in seconds (scheduling algorithm + binding)",
    labelNames: ATTEMPT_LABELS,
    buckets: E2E_BUCKETS,
    registers: [this.registry],
  });
  private readonly pending = new client.Gauge({
    name: "scheduler_pending_pods",
    help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulableQ.",
    labelNames: ["queue"],
    registers: [this.registry],
    collect: () => {
      const p = this.pendingPods();
      this.pending.labels("active").set(p.active);
      this.pending.labels("backoff").set(p.backoff);
      this.pending.labels("unschedulable").set(p.unschedulable);
    },
  });
  /** The labelled children, looked up once per (result, profile): labels() hashes its arguments each call. */
  private readonly children = new Map<string, { count: client.Counter.Internal; seconds: client.Histogram.Internal<string> }>();

  constructor() {
    client.collectDefaultMetrics({ register: this.registry });
  }

  /** One scheduling attempt of a pod of `profile` (its scheduler name), from its dequeue to its binding (or failure). */
  attempt(result: AttemptResult, profile: string, seconds: number) {
    const key = `${result}\0${profile}`;
    let c = this.children.get(key);
    if (!c) this.children.set(key, (c = { count: this.attempts.labels(profile, result), seconds: this.e2e.labels(profile, result) }));
    c.count.inc();
    c.seconds.observe(seconds);
  }

  /** The Prometheus text of every metric. */
  async text(): Promise<Response> {
    return new Response(applyMetricsOptions(await this.registry.metrics()), { headers: { "Content-Type": this.registry.contentType } });
  }
}
