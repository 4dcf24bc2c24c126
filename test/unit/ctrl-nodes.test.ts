// The pure rules of the node lifecycle and disruption controllers and of evictions: when a node is silent,
// which taints its conditions call for, how tolerations meet NoExecute taints, a budget's expected and
// desired pods, evictions awaited or overdue, and the disruption an eviction takes.
import { expect, test } from "bun:test";
import { awaitedEvictions, countHealthy, DELETION_TIMEOUT_MS, expectedCounts } from "../../pkg/controllers/disruption.ts";
import { NodeHealth, unknownConditions } from "../../pkg/controllers/nodelifecycle-health.ts";
import { reconcileTaints, tolerationMs } from "../../pkg/controllers/nodelifecycle-taints.ts";
import { disruption, zoneState } from "../../pkg/controllers/nodelifecycle-zones.ts";
import { takeDisruption } from "../../pkg/registry/eviction.ts";

const node = (conditions: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  metadata: { name: "n", creationTimestamp: "2021-01-01T00:00:00Z" }, spec,
  status: { conditions: Object.entries(conditions).map(([type, status]) => ({ type, status, lastHeartbeatTime: "2021-01-01T00:00:10Z" })) },
});
const keys = (taints: any[] | undefined) => (taints ?? []).map((t) => `${t.key}:${t.effect}`);

test("a node is silent once neither its heartbeat nor its Lease moved for the grace period (the startup one before Ready)", () => {
  let now = 1_000_000;
  const h = new NodeHealth({ monitorMs: 40_000, startupMs: 60_000 }, () => now);
  const lease = (t: number) => ({ spec: { renewTime: new Date(t).toISOString() } });
  const n = node({ Ready: "True" });
  expect(h.silent(n, lease(now))).toBe(false);
  now += 30_000;
  expect(h.silent(n, lease(now))).toBe(false); // renewed
  now += 39_000;
  expect(h.silent(n, lease(now - 39_000))).toBe(false);
  now += 2_000;
  expect(h.silent(n, lease(now - 41_000))).toBe(true);
  // a new heartbeat counts as much as a renewal
  const beat = { ...n, status: { conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: "2021-01-01T00:01:00Z" }] } };
  expect(h.silent(beat, lease(now - 41_000))).toBe(false);
  const fresh = { metadata: { name: "new", creationTimestamp: new Date(now - 50_000).toISOString() }, status: {} };
  expect(h.silent(fresh, undefined)).toBe(false);
  now += 11_000;
  expect(h.silent(fresh, undefined)).toBe(true);
});

test("a silent node's watched conditions become Unknown in upstream's words, once", () => {
  const c = unknownConditions(node({ Ready: "True", NetworkUnavailable: "False" }))!;
  expect(c.find((x) => x.type === "Ready")).toMatchObject({ status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastHeartbeatTime: "2021-01-01T00:00:10Z" });
  expect(c.find((x) => x.type === "PIDPressure")).toMatchObject({ status: "Unknown", reason: "NodeStatusNeverUpdated", message: "Kubelet never posted node status.", lastHeartbeatTime: "2021-01-01T00:00:00Z" });
  expect(c.find((x) => x.type === "NetworkUnavailable")?.status).toBe("False");
  expect(unknownConditions({ ...node({}), status: { conditions: c } })).toBeUndefined();
});

test("condition taints follow the conditions; other taints are kept; nothing to do is undefined", () => {
  expect(keys(reconcileTaints(node({ Ready: "False" })))).toEqual(["node.kubernetes.io/not-ready:NoSchedule", "node.kubernetes.io/not-ready:NoExecute"]);
  const unknown = reconcileTaints(node({ Ready: "Unknown", DiskPressure: "True" }))!;
  expect(keys(unknown)).toEqual(["node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"]);
  expect(unknown[2].timeAdded).toBeString();
  expect(reconcileTaints(node({ Ready: "Unknown", DiskPressure: "True" }, { taints: unknown }))).toBeUndefined();
  const back = reconcileTaints(node({ Ready: "True" }, { unschedulable: true, taints: [...unknown, { key: "team", effect: "NoExecute" }] }));
  expect(keys(back)).toEqual(["team:NoExecute", "node.kubernetes.io/unschedulable:NoSchedule"]);
  expect(reconcileTaints(node({ Ready: "True" }))).toBeUndefined();
});

test("tolerations: at once when a taint is not tolerated, the least seconds of those used, forever without any", () => {
  const unreachable = { key: "node.kubernetes.io/unreachable", effect: "NoExecute" };
  const notReady = { key: "node.kubernetes.io/not-ready", effect: "NoExecute" };
  expect(tolerationMs([unreachable], [])).toBe(0);
  expect(tolerationMs([unreachable], [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }])).toBe(300_000);
  expect(tolerationMs([unreachable, notReady], [{ key: "node.kubernetes.io/unreachable", operator: "Exists", tolerationSeconds: 300 }])).toBe(0);
  expect(tolerationMs([unreachable, notReady], [{ operator: "Exists", tolerationSeconds: 20 }, { key: "node.kubernetes.io/not-ready", operator: "Exists", tolerationSeconds: 5 }])).toBe(20_000);
  expect(tolerationMs([unreachable], [{ operator: "Exists" }])).toBeUndefined();
  expect(tolerationMs([{ ...unreachable, value: "x" }], [{ key: unreachable.key, value: "y", effect: "NoExecute" }])).toBe(0);
  expect(tolerationMs([unreachable], [{ key: unreachable.key, effect: "NoExecute", tolerationSeconds: -5 }])).toBe(0);
});

test("a budget's expected pods and desired healthy, by minAvailable or maxUnavailable", () => {
  const pods = [{}, {}, {}] as any[];
  const scale = () => 4;
  expect(expectedCounts({ spec: { minAvailable: 2 } }, pods, scale)).toEqual({ expectedPods: 3, desiredHealthy: 2 });
  expect(expectedCounts({ spec: { minAvailable: "50%" } }, pods, scale)).toEqual({ expectedPods: 4, desiredHealthy: 2 });
  expect(expectedCounts({ spec: { maxUnavailable: "30%" } }, pods, scale)).toEqual({ expectedPods: 4, desiredHealthy: 2 });
  expect(expectedCounts({ spec: { maxUnavailable: 9 } }, pods, scale)).toEqual({ expectedPods: 4, desiredHealthy: 0 });
  expect(() => expectedCounts({ spec: { maxUnavailable: 1 } }, pods, () => { throw new Error("found no controllers"); })).toThrow("found no controllers");
});

test("evictions are awaited for two minutes unless the pod is being deleted; the awaited do not count as healthy", () => {
  const now = Date.parse("2021-01-01T00:10:00Z");
  const ready = (name: string, extra: any = {}) => ({ metadata: { name, ...extra }, status: { conditions: [{ type: "Ready", status: "True" }] } });
  const pods = [ready("a"), ready("b"), ready("c", { deletionTimestamp: "2021-01-01T00:09:00Z" }), ready("d")];
  const pdb = { status: { disruptedPods: { a: "2021-01-01T00:09:30Z", b: "2021-01-01T00:07:00Z", c: "2021-01-01T00:09:30Z", gone: "2021-01-01T00:09:30Z" } } };
  const r = awaitedEvictions(pdb, pods, now);
  expect(r.awaited).toEqual({ a: "2021-01-01T00:09:30Z" });
  expect(r.overdue.map((p) => p.metadata.name)).toEqual(["b"]);
  expect(r.recheckAt).toBe(Date.parse("2021-01-01T00:09:30Z") + DELETION_TIMEOUT_MS);
  expect(countHealthy(pods, r.awaited)).toBe(2);
});

test("an eviction takes one disruption and records the pod; none left or an unobserved budget is a 429", () => {
  const pdb = (status: any, generation = 1) => ({ metadata: { name: "p", generation }, status: { observedGeneration: 1, ...status } });
  const took = takeDisruption(pdb({ disruptionsAllowed: 2, conditions: [] }), "x");
  expect(took.status.disruptionsAllowed).toBe(1);
  expect(Object.keys(took.status.disruptedPods)).toEqual(["x"]);
  expect(took.status.conditions).toEqual([]);
  const last = takeDisruption(pdb({ disruptionsAllowed: 1 }), "y");
  expect(last.status.conditions[0]).toMatchObject({ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods" });
  expect(() => takeDisruption(pdb({ disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2 }), "z")).toThrow("Cannot evict pod as it would violate the pod's disruption budget.");
  expect(() => takeDisruption(pdb({ disruptionsAllowed: 3 }, 2), "z")).toThrow("Cannot evict pod");
  expect(() => takeDisruption(pdb({ disruptionsAllowed: -1 }), "z")).toThrow("pdb disruptions allowed is negative");
});

test("zones: all not Ready is a full disruption; most of more than two is partial; evictions follow, hold or stop", () => {
  expect(zoneState(0, 1)).toBe("FullDisruption");
  expect(zoneState(1, 2)).toBe("Normal");
  expect(zoneState(2, 3)).toBe("PartialDisruption");
  expect(zoneState(3, 3)).toBe("Normal");
  const inZone = (name: string, zone: string, ready: string) => ({ ...node({ Ready: ready }), metadata: { name, labels: { "topology.kubernetes.io/zone": zone } } });
  const d = disruption([inZone("a1", "a", "True"), inZone("a2", "a", "Unknown"), inZone("b1", "b", "Unknown"),
    inZone("c1", "c", "True"), inZone("c2", "c", "Unknown"), inZone("c3", "c", "Unknown"), inZone("c4", "c", "False")]);
  expect(d.all).toBe(false);
  expect(d.policyFor(inZone("a2", "a", "Unknown"))).toBe("follow");
  // a zone down among zones up is evicted from as usual
  expect(d.policyFor(inZone("b1", "b", "Unknown"))).toBe("follow");
  expect(d.policyFor(inZone("c2", "c", "Unknown"))).toBe("hold");
  const down = disruption([inZone("a1", "a", "Unknown"), inZone("b1", "b", "False")]);
  expect(down.all).toBe(true);
  expect(down.policyFor(inZone("a1", "a", "Unknown"))).toBe("none");
  // held: no new NoExecute taint, the present one stays; none: it goes
  const held = reconcileTaints(node({ Ready: "Unknown" }), "hold");
  expect(keys(held)).toEqual(["node.kubernetes.io/unreachable:NoSchedule"]);
  const tainted = node({ Ready: "Unknown" }, { taints: [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }] });
  expect(keys(reconcileTaints(tainted, "hold"))).toEqual(["node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"]);
  expect(keys(reconcileTaints(tainted, "none"))).toEqual(["node.kubernetes.io/unreachable:NoSchedule"]);
});
