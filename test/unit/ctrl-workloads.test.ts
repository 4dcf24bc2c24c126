// Pure logic of the workload controllers: maxSurge/maxUnavailable rounding, the pod-template-hash, the
// new ReplicaSet's size, which pods a scale-down deletes first, slow-start batches and expectations.
import { expect, test } from "bun:test";
import { computeHash, equalIgnoreHash, newRSNewReplicas, resolveFenceposts, setNewReplicaSetAnnotations } from "../../pkg/controllers/deployment-util.ts";
import { Expectations } from "../../pkg/controllers/expectations.ts";
import { slowStartBatch } from "../../pkg/controllers/podcontrol.ts";
import { podsToDelete } from "../../pkg/controllers/podranking.ts";

const deployment = (replicas: number, maxSurge?: number | string, maxUnavailable?: number | string) =>
  ({ metadata: { name: "d", annotations: {} }, spec: { replicas, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge, maxUnavailable } }, template: {} } });

test.each([
  // replicas, maxSurge, maxUnavailable → surge (rounded up), unavailable (rounded down)
  [10, undefined, undefined, 3, 2],
  [4, "25%", "25%", 1, 1],
  [3, "25%", "25%", 1, 0],
  [1, "0%", "0%", 0, 1],
  [10, 0, 0, 0, 1],
  [10, "50%", 3, 5, 3],
])("fenceposts for %p replicas, maxSurge %p, maxUnavailable %p", (replicas, surge, unavailable, wantSurge, wantUnavailable) => {
  expect(resolveFenceposts(deployment(replicas, surge, unavailable))).toEqual({ surge: wantSurge, unavailable: wantUnavailable });
});

test("a maxSurge string that is not a percentage is refused", () => {
  expect(() => resolveFenceposts(deployment(5, "1", 1))).toThrow("invalid type: string is not a percentage");
});

test("the template hash is stable, blind to key order and empty fields, moved by a collision count, in the safe alphabet", () => {
  const a = { metadata: { labels: { app: "x", tier: "web" } }, spec: { containers: [{ name: "c", image: "i" }] } };
  const b = { spec: { containers: [{ image: "i", name: "c" }], volumes: [] }, metadata: { labels: { tier: "web", app: "x" }, annotations: {} } };
  expect(computeHash(a)).toBe(computeHash(b));
  expect(computeHash(a)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  expect(computeHash(a, 1)).not.toBe(computeHash(a));
  expect(computeHash({ ...a, spec: { containers: [{ name: "c", image: "j" }] } })).not.toBe(computeHash(a));
  expect(equalIgnoreHash({ metadata: { labels: { app: "x", "pod-template-hash": "abc" } } }, { metadata: { labels: { app: "x" } } })).toBe(true);
});

test("a new ReplicaSet grows within maxSurge of all ReplicaSets' replicas", () => {
  const d = deployment(10, 3, 2);
  const old = { metadata: {}, spec: { replicas: 10 } }, fresh = { metadata: {}, spec: { replicas: 0 } };
  expect(newRSNewReplicas(d, [old, fresh], fresh)).toBe(3);
  expect(newRSNewReplicas(d, [{ metadata: {}, spec: { replicas: 8 } }, { metadata: {}, spec: { replicas: 3 } }], { metadata: {}, spec: { replicas: 3 } })).toBe(5);
  expect(newRSNewReplicas({ ...d, spec: { ...d.spec, strategy: { type: "Recreate" } } }, [old, fresh], fresh)).toBe(10);
});

test("a ReplicaSet brought back by a rollback takes the next revision and remembers its old one", () => {
  const d = { metadata: { annotations: { team: "a", "kubectl.kubernetes.io/last-applied-configuration": "{}" } }, spec: { replicas: 2 } };
  const rs: any = { metadata: { annotations: { "deployment.kubernetes.io/revision": "1" } } };
  expect(setNewReplicaSetAnnotations(d, rs, 3, true)).toBe(true);
  expect(rs.metadata.annotations).toEqual({ team: "a", "deployment.kubernetes.io/revision": "3", "deployment.kubernetes.io/revision-history": "1" });
});

test("a scale-down deletes unscheduled, then pending, then not ready, then newer pods first", () => {
  const pod = (name: string, o: { node?: string; phase?: string; ready?: boolean; created?: string; restarts?: number }) => ({
    metadata: { name, creationTimestamp: o.created ?? "2021-01-01T00:00:00Z" },
    spec: { nodeName: o.node },
    status: { phase: o.phase ?? "Running", conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True", lastTransitionTime: "2021-01-01T00:00:10Z" }], containerStatuses: [{ restartCount: o.restarts ?? 0 }] },
  });
  const pods = [
    pod("old-ready", { node: "n1" }),
    pod("new-ready", { node: "n2", created: "2021-01-02T00:00:00Z" }),
    pod("restarts", { node: "n3", restarts: 3 }),
    pod("not-ready", { node: "n4", ready: false }),
    pod("pending", { node: "n5", phase: "Pending", ready: false }),
    pod("unscheduled", { phase: "Pending", ready: false }),
  ];
  const order = podsToDelete([...pods].reverse(), pods, 5).map((p) => p.metadata.name);
  expect(order).toEqual(["unscheduled", "pending", "not-ready", "restarts", "new-ready"]);
});

test("slow-start batches double from 1 and stop after the first batch with a failure", async () => {
  let running = 0, peak = 0;
  const r = await slowStartBatch(10, 1, async () => { peak = Math.max(peak, ++running); await Bun.sleep(1); running--; });
  expect(r).toEqual({ ok: 10 });
  expect(peak).toBe(4); // 1, 2, 4, then the 3 left
  let calls = 0;
  const failing = await slowStartBatch(100, 1, async () => { if (++calls > 3) throw new Error("quota"); });
  expect(failing.ok).toBe(3);
  expect(failing.error?.message).toBe("quota");
  expect(calls).toBe(7); // batches of 1, 2, 4: the third fails, no more
});

test("expectations hold a controller back until its creations and deletions are observed", () => {
  const e = new Expectations();
  expect(e.satisfied("ns/rs")).toBe(true);
  e.expectCreations("ns/rs", 2);
  e.creationObserved("ns/rs");
  expect(e.satisfied("ns/rs")).toBe(false);
  e.creationObserved("ns/rs");
  expect(e.satisfied("ns/rs")).toBe(true);
  e.expectDeletions("ns/rs", ["ns/a", "ns/b"]);
  e.deletionObserved("ns/rs", "ns/a");
  e.deletionObserved("ns/rs", "ns/a"); // counted once
  expect(e.satisfied("ns/rs")).toBe(false);
  e.deletionObserved("ns/rs", "ns/b");
  expect(e.satisfied("ns/rs")).toBe(true);
});
