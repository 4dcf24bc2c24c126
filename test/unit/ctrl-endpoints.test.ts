// The endpoint controllers' pure parts: subsets repacked as upstream's RepackSubsets, and the slice
// reconciler's plan (fill, split, reuse, placeholder).
import { expect, test } from "bun:test";
import { reconcileSlices, type ReconcileInput } from "../../pkg/controllers/endpointslice-reconciler.ts";
import { repackSubsets } from "../../pkg/controllers/endpointsubsets.ts";
import { findPort, TriggerTimeTracker } from "../../pkg/controllers/endpointutil.ts";

const addr = (ip: string, uid = ip) => ({ ip, targetRef: { kind: "Pod", uid } });
const port = (name: string, p: number) => ({ name, port: p, protocol: "TCP" });

test("repacking merges subsets of the same ports, ready wins, and sorts", () => {
  const out = repackSubsets([
    { addresses: [addr("10.0.0.2")], ports: [port("http", 80)] },
    { notReadyAddresses: [addr("10.0.0.1")], ports: [port("http", 80)] },
    { notReadyAddresses: [addr("10.0.0.2")], ports: [port("http", 80)] },
    { addresses: [addr("10.0.0.2")], ports: [port("metrics", 9090)] },
    { notReadyAddresses: [addr("10.0.0.1")], ports: [port("metrics", 9090)] },
    { addresses: [addr("10.0.0.3")], ports: [port("http", 81)] },
  ]);
  expect(out).toEqual([
    { addresses: [addr("10.0.0.2")], notReadyAddresses: [addr("10.0.0.1")], ports: [port("http", 80), port("metrics", 9090)] },
    { addresses: [addr("10.0.0.3")], ports: [port("http", 81)] },
  ]);
  // The same input in another order packs the same.
  expect(repackSubsets([...[
    { addresses: [addr("10.0.0.3")], ports: [port("http", 81)] },
    { notReadyAddresses: [addr("10.0.0.1")], ports: [port("metrics", 9090), port("http", 80)] },
    { addresses: [addr("10.0.0.2")], ports: [port("metrics", 9090), port("http", 80)] },
  ]])).toEqual(out);
  // One IP of two pods is two addresses; a subset without ports keeps none.
  expect(repackSubsets([{ addresses: [addr("10.0.0.5", "a")] }, { addresses: [addr("10.0.0.5", "b")] }])).toEqual([{ addresses: [addr("10.0.0.5", "a"), addr("10.0.0.5", "b")] }]);
});

test("findPort: numbers as they are, names among the containers' ports of the same protocol", () => {
  const pod = { spec: { containers: [{ ports: [{ name: "dns", containerPort: 53, protocol: "UDP" }, { name: "http", containerPort: 8080 }] }] } };
  expect(findPort(pod, { port: 80, targetPort: 8081 })).toBe(8081);
  expect(findPort(pod, { port: 80 })).toBe(80);
  expect(findPort(pod, { port: 80, targetPort: "http" })).toBe(8080);
  expect(findPort(pod, { port: 53, targetPort: "dns", protocol: "UDP" })).toBe(53);
  expect(findPort(pod, { port: 53, targetPort: "dns", protocol: "TCP" })).toBeUndefined();
});

test("the trigger time is the earliest change since the last sync, none on the first", () => {
  const t = new TriggerTimeTracker();
  const svc = { metadata: { namespace: "n", name: "s", creationTimestamp: "2026-01-01T00:00:00Z" } };
  const pod = (name: string, at: string) => ({ metadata: { name }, status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: at }] } });
  expect(t.compute(svc, [pod("a", "2026-01-01T00:00:05Z")])).toBeUndefined();
  expect(t.compute(svc, [pod("a", "2026-01-01T00:00:05Z")])).toBeUndefined();
  expect(t.compute(svc, [pod("a", "2026-01-01T00:00:09Z"), pod("b", "2026-01-01T00:00:07Z")])?.toISOString()).toBe("2026-01-01T00:00:07.000Z");
});

const svc = { metadata: { namespace: "n", name: "web", uid: "svc-uid" }, spec: { selector: { app: "web" }, clusterIP: "10.96.0.10", ports: [{ port: 80, targetPort: 8080 }] } };
const pod = (i: number) => ({
  metadata: { namespace: "n", name: `p${i}`, uid: `u${i}` },
  spec: { nodeName: "n1", containers: [] },
  status: { phase: "Running", podIP: `10.0.0.${i}`, conditions: [{ type: "Ready", status: "True" }] },
});
const pods = (n: number) => Array.from({ length: n }, (_, i) => pod(i + 1));
const input = (o: Partial<ReconcileInput>): ReconcileInput => ({ svc, pods: [], node: () => undefined, existing: [], max: 3, ...o });
/** The plan's creates applied: existing slices as the server would hold them. */
const stored = (slices: any[]) => slices.map((x, i) => ({ ...x, metadata: { ...x.metadata, name: `web-${i}`, uid: `s${i}`, resourceVersion: "1" } }));

test("the reconciler splits at the maximum, keeps what is in place, and fills before it creates", () => {
  const first = reconcileSlices(input({ pods: pods(7) }));
  expect(first.create.map((x) => x.endpoints.length)).toEqual([3, 3, 1]);
  expect(first.update).toEqual([]);
  const existing = stored(first.create);
  // Nothing changed: nothing to write.
  expect(reconcileSlices(input({ pods: pods(7), existing }))).toEqual({ create: [], update: [], delete: [] });
  // One more pod goes into the slice with room (an update), not a new slice.
  const more = reconcileSlices(input({ pods: pods(8), existing }));
  expect(more.create).toEqual([]);
  expect(more.update.map((x) => [x.metadata.name, x.endpoints.length])).toEqual([["web-2", 2]]);
  // Pods gone leave their slices; an emptied slice is deleted.
  const fewer = reconcileSlices(input({ pods: pods(3), existing }));
  expect(fewer.delete.map((x) => x.metadata.name).sort()).toEqual(["web-1", "web-2"]);
});

test("an emptied slice is reused for a new one; no pods leave one placeholder", () => {
  const existing = stored(reconcileSlices(input({ pods: pods(2) })).create);
  // Both pods replaced by others: the slice is updated in place rather than deleted and created.
  const others = [pod(5), pod(6)];
  const plan = reconcileSlices(input({ pods: others, existing }));
  expect(plan.create).toEqual([]);
  expect(plan.delete).toEqual([]);
  expect(plan.update.map((x) => [x.metadata.name, x.endpoints.map((e: any) => e.addresses[0])])).toEqual([["web-0", ["10.0.0.5", "10.0.0.6"]]]);
  // No pods: the slice becomes the placeholder (no endpoints, no ports).
  const none = reconcileSlices(input({ pods: [], existing }));
  expect(none.update.map((x) => [x.metadata.name, x.endpoints, x.ports])).toEqual([["web-0", [], []]]);
  // A placeholder already there stays.
  expect(reconcileSlices(input({ pods: [], existing: stored(none.update) }))).toEqual({ create: [], update: [], delete: [] });
});
