// The eviction manager's rules, on a clock the test moves: hard thresholds act at once, soft ones after
// their grace period, a met threshold holds until its minimum reclaim is back, conditions stay on for the
// transition period, pods are ranked as upstream ranks them, and admission under pressure.
import { expect, test } from "bun:test";
import { EvictionManager, rank, type Candidate } from "../../pkg/nodeagent/eviction/manager.ts";
import type { Observations } from "../../pkg/nodeagent/eviction/signals.ts";

const Gi = 2 ** 30, Mi = 2 ** 20;
const mem = (available: number): Observations => ({ "memory.available": { available, capacity: 16 * Gi } });
const pod = (name: string, extra: { priority?: number; request?: string; static?: boolean } = {}) => ({
  metadata: { name, annotations: extra.static ? { "kubernetes.io/config.source": "file" } : {} },
  spec: { priority: extra.priority, containers: [{ name: "c", resources: extra.request ? { requests: { memory: extra.request } } : {} }] },
});
const cand = (p: any, usedMi: number): Candidate => ({ pod: p, memoryBytes: usedMi * Mi, containerMemory: new Map([["c", usedMi * Mi]]) });

test("a hard threshold evicts at once, with upstream's message; conditions stay on for the transition period", () => {
  let now = 0;
  const m = new EvictionManager({ hard: [{ signal: "memory.available", quantity: 1 * Gi }], soft: [], pressureTransitionPeriodMs: 60_000, maxPodGracePeriodSeconds: 30 }, () => now);
  expect(m.synchronize(mem(2 * Gi), [cand(pod("a"), 10)])).toBeUndefined();
  expect([...m.conditions()]).toEqual([]);
  const d = m.synchronize(mem(512 * Mi), [cand(pod("small", { request: "100Mi" }), 50), cand(pod("hog"), 300)])!;
  expect(d.pod.metadata.name).toBe("hog");
  expect(d.gracePeriodSeconds).toBe(0);
  expect(d.message).toBe("The node was low on resource: memory. Threshold quantity: 1Gi, available: 524288Ki. Container c was using 307200Ki, which exceeds its request of 0. ");
  expect([...m.conditions()]).toEqual(["MemoryPressure"]);
  now = 30_000;
  expect(m.synchronize(mem(4 * Gi), [])).toBeUndefined();
  expect([...m.conditions()]).toEqual(["MemoryPressure"]);
  now = 61_000;
  expect([...m.conditions()]).toEqual([]);
});

test("a soft threshold waits for its grace period, then evicts with --eviction-max-pod-grace-period", () => {
  let now = 0;
  const m = new EvictionManager({ hard: [], soft: [{ signal: "memory.available", quantity: 1 * Gi, gracePeriodMs: 10_000 }], pressureTransitionPeriodMs: 1000, maxPodGracePeriodSeconds: 7 }, () => now);
  const pods = [cand(pod("a"), 10)];
  expect(m.synchronize(mem(Gi / 2), pods)).toBeUndefined();
  expect([...m.conditions()]).toEqual(["MemoryPressure"]); // the condition is on before the grace period ends
  now = 9_000;
  expect(m.synchronize(mem(Gi / 2), pods)).toBeUndefined();
  now = 10_000;
  expect(m.synchronize(mem(Gi / 2), pods)).toMatchObject({ gracePeriodSeconds: 7 });
  // a breach that ends restarts the grace period
  now = 11_000;
  expect(m.synchronize(mem(2 * Gi), pods)).toBeUndefined();
  now = 12_000;
  expect(m.synchronize(mem(Gi / 2), pods)).toBeUndefined();
});

test("minimum reclaim: once met, a threshold holds until the reclaim is back too", () => {
  const m = new EvictionManager({ hard: [{ signal: "memory.available", quantity: 1 * Gi, minimumReclaim: { quantity: 500 * Mi } }], soft: [], pressureTransitionPeriodMs: 0, maxPodGracePeriodSeconds: 0 });
  const pods = [cand(pod("a"), 10)];
  expect(m.synchronize(mem(Gi - 1), pods)).toBeDefined();
  expect(m.synchronize(mem(Gi + 100 * Mi), pods)).toBeDefined();
  expect(m.synchronize(mem(Gi + 600 * Mi), pods)).toBeUndefined();
  expect(m.synchronize(mem(Gi + 100 * Mi), pods)).toBeUndefined();
});

test("ranking: over-request first, then lower priority, then most above request; static pods are never evicted", () => {
  const names = (cs: Candidate[]) => cs.map((c) => c.pod.metadata.name);
  const within = cand(pod("within", { request: "1Gi", priority: 0 }), 100);
  const overLow = cand(pod("over-low", { priority: 0 }), 50);
  const overHigh = cand(pod("over-high", { priority: 1000 }), 500);
  const overBig = cand(pod("over-big", { priority: 0 }), 400);
  expect(names(rank("memory", [within, overHigh, overLow, overBig]))).toEqual(["over-big", "over-low", "over-high", "within"]);
  expect(names(rank("pids", [overHigh, within]))).toEqual(["within", "over-high"]);
  const m = new EvictionManager({ hard: [{ signal: "memory.available", quantity: 1 * Gi }], soft: [], pressureTransitionPeriodMs: 1000, maxPodGracePeriodSeconds: 0 });
  expect(m.synchronize(mem(0), [cand(pod("static", { static: true }), 900)])).toBeUndefined();
});

test("admission under pressure: memory pressure alone refuses BestEffort pods only; static pods always start", () => {
  const m = new EvictionManager({ hard: [{ signal: "memory.available", quantity: 1 * Gi }], soft: [], pressureTransitionPeriodMs: 60_000, maxPodGracePeriodSeconds: 0 });
  expect(m.admit(pod("x"))).toBeUndefined();
  m.synchronize(mem(0), []);
  expect(m.admit({ ...pod("x"), spec: { containers: [{ name: "c" }] } })).toEqual({ reason: "Evicted", message: "The node had condition: [MemoryPressure]. " });
  expect(m.admit({ ...pod("x"), spec: { containers: [{ name: "c", resources: { requests: { cpu: "10m" } } }] } })).toBeUndefined();
  expect(m.admit({ ...pod("s", { static: true }), spec: { containers: [{ name: "c" }] } })).toBeUndefined();
});
