// The HorizontalPodAutoscaler's arithmetic (upstream v1.21's replica calculator and normalization): the
// replica count a resource metric asks for, within the tolerance, with pods that are unready or without
// metrics counted conservatively; then the downscale stabilization window and the min/max/scale-up rules.
import type { Obj } from "../client/client.ts";
import { getCondition } from "./conditions.ts";

export interface HpaTimings {
  /** --horizontal-pod-autoscaler-tolerance */
  tolerance: number;
  /** --horizontal-pod-autoscaler-cpu-initialization-period */
  cpuInitializationPeriodMs: number;
  /** --horizontal-pod-autoscaler-initial-readiness-delay */
  initialReadinessDelayMs: number;
}

/** A pod's usage of the resource (millicores, or bytes) and when it was measured over what window. */
export interface PodUsage { value: number; timestampMs: number; windowMs: number }

export interface ReplicaProposal { replicas: number; utilization: number; rawAverage: number }

/** Sum of the pod's containers' requests of `resource` (millicores for cpu); throws for a container without one. */
export function podRequest(pod: Obj, resource: string): number {
  let sum = 0;
  for (const c of pod.spec?.containers ?? []) {
    const q = c.resources?.requests?.[resource];
    if (q === undefined) throw new Error(`missing request for ${resource}`);
    sum += resource === "cpu" ? milli(q) : parseQuantity(q);
  }
  return sum;
}

const SUFFIX: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** A Quantity as a number (`250m` → 0.25, `1Ki` → 1024, `1e3` → 1000). */
export function parseQuantity(q: string | number): number {
  if (typeof q === "number") return q;
  const m = /^([+-]?[\d.]+(?:[eE][+-]?\d+)?)([a-zA-Z]*)$/.exec(q.trim());
  if (!m || !(m[2] in SUFFIX)) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  return Number(m[1]) * SUFFIX[m[2]];
}

/** A Quantity in thousandths, rounded up as upstream's MilliValue. */
export const milli = (q: string | number) => Math.ceil(Math.round(parseQuantity(q) * 1e9) / 1e6);

/**
 * Upstream's GetResourceReplicas for a utilization target: `usage` by pod name (the metrics API's), `pods`
 * the target's pods. Throws in upstream's words when nothing can be computed.
 */
export function resourceReplicas(currentReplicas: number, targetUtilization: number, resource: string, pods: Obj[], usage: Map<string, PodUsage>, t: HpaTimings, now = Date.now()): ReplicaProposal {
  if (!usage.size) throw new Error(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  if (!pods.length) throw new Error("no pods returned by selector while calculating replica count");
  const metrics = new Map<string, number>();
  const unready = new Set<string>(), missing = new Set<string>();
  let ready = 0;
  for (const pod of pods) {
    const name: string = pod.metadata.name;
    if (pod.metadata.deletionTimestamp || pod.status?.phase === "Failed") continue;
    if (pod.status?.phase === "Pending") { unready.add(name); continue; }
    const u = usage.get(name);
    if (!u) { missing.add(name); continue; }
    if (resource === "cpu" && ignoredCpuSample(pod, u, t, now)) { unready.add(name); continue; }
    metrics.set(name, u.value);
    ready++;
  }
  if (!metrics.size && !missing.size && !unready.size) throw new Error("did not receive metrics for any ready pods");
  const requests = new Map(pods.map((p) => [p.metadata.name as string, podRequest(p, resource)]));
  const ratio = (m: Map<string, number>) => {
    let used = 0, requested = 0;
    for (const [name, v] of m) {
      if (!requests.has(name)) continue;
      used += v;
      requested += requests.get(name)!;
    }
    if (requested === 0) throw new Error("no metrics returned matched known pods");
    const utilization = Math.trunc((used * 100) / requested);
    return { ratio: utilization / targetUtilization, utilization, rawAverage: used / m.size };
  };
  const first = ratio(metrics);
  const rebalanceIgnored = unready.size > 0 && first.ratio > 1;
  const unchanged = { replicas: currentReplicas, utilization: first.utilization, rawAverage: first.rawAverage };
  if (!rebalanceIgnored && !missing.size) {
    if (Math.abs(1 - first.ratio) <= t.tolerance) return unchanged;
    return { replicas: Math.ceil(first.ratio * ready), utilization: first.utilization, rawAverage: first.rawAverage };
  }
  // pods without metrics count as using their whole request when scaling down, nothing when scaling up;
  // unready pods as using nothing when scaling up
  for (const name of missing) metrics.set(name, first.ratio < 1 ? requests.get(name) ?? 0 : 0);
  if (rebalanceIgnored) for (const name of unready) metrics.set(name, 0);
  const next = ratio(metrics);
  if (Math.abs(1 - next.ratio) <= t.tolerance || (first.ratio < 1 && next.ratio > 1) || (first.ratio > 1 && next.ratio < 1)) return unchanged;
  const replicas = Math.ceil(next.ratio * metrics.size);
  if ((next.ratio < 1 && replicas > currentReplicas) || (next.ratio > 1 && replicas < currentReplicas)) return unchanged;
  return { replicas, utilization: first.utilization, rawAverage: first.rawAverage };
}

/** Whether a pod's cpu sample is left out: unready while starting, or measured before it became ready. */
function ignoredCpuSample(pod: Obj, u: PodUsage, t: HpaTimings, now: number): boolean {
  const ready = getCondition(pod.status?.conditions, "Ready");
  const started = pod.status?.startTime ? Date.parse(pod.status.startTime) : undefined;
  if (!ready || started === undefined) return true;
  const transition = Date.parse(ready.lastTransitionTime ?? "") || 0;
  if (started + t.cpuInitializationPeriodMs > now) return ready.status === "False" || u.timestampMs < transition + u.windowMs;
  return ready.status === "False" && started + t.initialReadinessDelayMs > transition;
}

export interface Limited { replicas: number; reason: string; message: string }

/** upstream's convertDesiredReplicasWithRules: within min and max, and at most max(2×current, 4). */
export function limitReplicas(current: number, desired: number, min: number, max: number): Limited {
  const scaleUpLimit = Math.max(2 * current, 4);
  const allowed = Math.min(max, scaleUpLimit);
  if (desired < min) return { replicas: min, reason: "TooFewReplicas", message: "the desired replica count is less than the minimum replica count" };
  if (desired > allowed) {
    return max > scaleUpLimit
      ? { replicas: allowed, reason: "ScaleUpLimit", message: "the desired replica count is increasing faster than the maximum scale rate" }
      : { replicas: allowed, reason: "TooManyReplicas", message: "the desired replica count is more than the maximum replica count" };
  }
  return { replicas: desired, reason: "DesiredWithinRange", message: "the desired count is within the acceptable range" };
}

/** Recommendations of the last window per HPA: a scale down takes the highest of them (upstream's stabilizeRecommendation). */
export class Recommendations {
  private readonly byKey = new Map<string, { at: number; replicas: number }[]>();

  constructor(private readonly windowMs: number) {}

  stabilize(key: string, replicas: number, now = Date.now()): number {
    const recent = (this.byKey.get(key) ?? []).filter((r) => r.at > now - this.windowMs);
    const max = Math.max(replicas, ...recent.map((r) => r.replicas));
    recent.push({ at: now, replicas });
    this.byKey.set(key, recent);
    return max;
  }

  forget(key: string): void { this.byKey.delete(key); }
}
