// The HorizontalPodAutoscaler's arithmetic as upstream's replica calculator does it: the tolerance, pods
// without metrics or not ready counted conservatively, the scale-up limit and min/max, the downscale
// stabilization window, and the targets of a v1 object (its cpu percentage, or the metrics annotation).
import { expect, test } from "bun:test";
import { resourceTargets } from "../../pkg/controllers/horizontalpodautoscaling.ts";
import { Recommendations, limitReplicas, milli, resourceReplicas, type HpaTimings, type PodUsage } from "../../pkg/controllers/hpa-replicas.ts";

const T: HpaTimings = { tolerance: 0.1, cpuInitializationPeriodMs: 300_000, initialReadinessDelayMs: 30_000 };
const NOW = Date.parse("2021-04-08T12:10:00Z");
const STARTED = "2021-04-08T12:00:00Z";

const pod = (name: string, o: { phase?: string; ready?: boolean; request?: string } = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: "c", resources: o.request === undefined ? { requests: { cpu: "100m" } } : o.request ? { requests: { cpu: o.request } } : {} }] },
  status: { phase: o.phase ?? "Running", startTime: STARTED, conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True", lastTransitionTime: STARTED }] },
});
const usage = (entries: [string, number][]) => new Map<string, PodUsage>(entries.map(([n, v]) => [n, { value: v, timestampMs: NOW, windowMs: 1000 }]));

test("the ratio of usage to target times the ready pods, rounded up; within the tolerance nothing changes", () => {
  const pods = [pod("a"), pod("b")];
  expect(resourceReplicas(2, 50, "cpu", pods, usage([["a", 100], ["b", 100]]), T, NOW)).toEqual({ replicas: 4, utilization: 100, rawAverage: 100 });
  expect(resourceReplicas(2, 50, "cpu", pods, usage([["a", 54], ["b", 54]]), T, NOW).replicas).toBe(2);
  expect(resourceReplicas(2, 50, "cpu", pods, usage([["a", 10], ["b", 10]]), T, NOW).replicas).toBe(1);
});

test("pods without metrics: their whole request when scaling down, nothing when scaling up; unready pods nothing when scaling up", () => {
  // scaling down: the missing pod at 100 % keeps the ratio from falling as far
  expect(resourceReplicas(3, 50, "cpu", [pod("a"), pod("b"), pod("c")], usage([["a", 10], ["b", 10]]), T, NOW).replicas).toBe(3);
  // scaling up: the missing pod at 0 % brings 101 % of a's request down to the target (a alone would ask for 3)
  expect(resourceReplicas(2, 50, "cpu", [pod("a"), pod("b")], usage([["a", 101]]), T, NOW).replicas).toBe(2);
  expect(resourceReplicas(2, 50, "cpu", [pod("a"), pod("b", { ready: false })], usage([["a", 101], ["b", 200]]), T, NOW).replicas).toBe(2);
  expect(resourceReplicas(2, 50, "cpu", [pod("a"), pod("b")], usage([["a", 101], ["b", 200]]), T, NOW).replicas).toBe(6);
});

test("upstream's errors: no metrics, no pods, a container without a request", () => {
  expect(() => resourceReplicas(1, 50, "cpu", [pod("a")], usage([]), T, NOW)).toThrow("unable to get metrics for resource cpu: no metrics returned from resource metrics API");
  expect(() => resourceReplicas(1, 50, "cpu", [], usage([["a", 1]]), T, NOW)).toThrow("no pods returned by selector while calculating replica count");
  expect(() => resourceReplicas(1, 50, "cpu", [pod("a", { request: "" })], usage([["a", 1]]), T, NOW)).toThrow("missing request for cpu");
});

test("min, max and the scale-up limit of max(2×current, 4), in upstream's reasons", () => {
  expect(limitReplicas(1, 40, 1, 10)).toEqual({ replicas: 4, reason: "ScaleUpLimit", message: "the desired replica count is increasing faster than the maximum scale rate" });
  expect(limitReplicas(1, 40, 1, 3)).toMatchObject({ replicas: 3, reason: "TooManyReplicas" });
  expect(limitReplicas(3, 0, 1, 3)).toMatchObject({ replicas: 1, reason: "TooFewReplicas" });
  expect(limitReplicas(3, 2, 1, 3)).toMatchObject({ replicas: 2, reason: "DesiredWithinRange" });
});

test("a scale down takes the highest recommendation of the window", () => {
  const r = new Recommendations(5000);
  expect(r.stabilize("k", 5, 0)).toBe(5);
  expect(r.stabilize("k", 2, 1000)).toBe(5);
  expect(r.stabilize("k", 2, 6500)).toBe(2);
});

test("a v1 object's targets: its cpu percentage (80 when unset), or the resource metrics of its annotation", () => {
  expect(resourceTargets({ metadata: {}, spec: { targetCPUUtilizationPercentage: 50 } })).toEqual([{ resource: "cpu", utilization: 50 }]);
  expect(resourceTargets({ metadata: {}, spec: {} })).toEqual([{ resource: "cpu", utilization: 80 }]);
  const annotations = { "autoscaling.alpha.kubernetes.io/metrics": JSON.stringify([{ type: "Resource", resource: { name: "memory", targetAverageValue: "100Mi" } }]) };
  expect(resourceTargets({ metadata: { annotations }, spec: {} })).toEqual([{ resource: "memory", utilization: undefined, averageValue: 100 * 2 ** 20 }]);
  expect(resourceTargets({ metadata: { annotations }, spec: { targetCPUUtilizationPercentage: 60 } }).map((t) => t.resource)).toEqual(["cpu", "memory"]);
  expect(milli("123456n")).toBe(1);
  expect(milli("1.5")).toBe(1500);
});
