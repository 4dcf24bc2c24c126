// core/v1 event recording without a server: the correlator (spam filter, aggregation of similar events,
// counts of repeats), the write queue's rate limit, and the node agent's condition events.
import { expect, test } from "bun:test";
import type { Client, Obj } from "../../pkg/client/client.ts";
import { COMBINED_PREFIX, CoreEventBroadcaster } from "../../pkg/client/corev1events.ts";
import { conditionEvents, containerRef } from "../../pkg/nodeagent/events.ts";

/** A client that keeps the events it is sent: creates by name, PATCHes merged over them. */
function fakeClient() {
  const stored = new Map<string, Obj>();
  const calls: string[] = [];
  const client = {
    async create(_r: unknown, ev: Obj) { calls.push(`create ${ev.reason}`); stored.set(ev.metadata.name, structuredClone(ev)); return ev; },
    async patch(_r: unknown, name: string, patch: Obj) { calls.push(`patch ${patch.count}`); Object.assign(stored.get(name)!, patch); return stored.get(name); },
  } as unknown as Client;
  return { client, stored, calls };
}

const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "ns", uid: "u1" } };

test("a repeated event is one object whose count goes up; the last write carries the latest count", async () => {
  const { client, stored, calls } = fakeClient();
  const b = new CoreEventBroadcaster(client);
  const rec = b.newRecorder({ component: "kubelet", host: "n1" });
  for (let i = 0; i < 4; i++) rec.event(containerRef(pod, "c"), "Warning", "BackOff", "Back-off restarting failed container");
  await b.flush();
  rec.event(containerRef(pod, "c"), "Warning", "BackOff", "Back-off restarting failed container");
  await b.flush();
  expect(stored.size).toBe(1);
  const [ev] = stored.values();
  expect(ev).toMatchObject({
    apiVersion: "v1", kind: "Event", count: 5, type: "Warning", reason: "BackOff", message: "Back-off restarting failed container",
    source: { component: "kubelet", host: "n1" }, reportingComponent: "kubelet", reportingInstance: "n1",
    involvedObject: { kind: "Pod", namespace: "ns", name: "web", uid: "u1", apiVersion: "v1", fieldPath: "spec.containers{c}" },
  });
  expect(ev.metadata.name).toMatch(/^web\.[0-9a-f]+$/);
  expect(ev.metadata.namespace).toBe("ns");
  // the first write creates (count 1); the three repeats meanwhile ride on one PATCH; the fifth is its own
  expect(calls).toEqual(["create BackOff", "patch 4", "patch 5"]);
});

test("a different message or container is another event; the tenth different message of a reason is combined", async () => {
  const { client, stored } = fakeClient();
  const b = new CoreEventBroadcaster(client);
  const rec = b.newRecorder({ component: "kubelet", host: "n1" });
  rec.event(containerRef(pod, "a"), "Normal", "Started", "Started container a");
  rec.event(containerRef(pod, "b"), "Normal", "Started", "Started container a");
  for (let i = 0; i < 12; i++) rec.event(pod, "Warning", "FailedMount", `volume v${i} failed`);
  await b.flush();
  const events = [...stored.values()];
  expect(events.filter((e) => e.reason === "Started").length).toBe(2);
  const mounts = events.filter((e) => e.reason === "FailedMount");
  // nine on their own, then one that counts the rest (three) with the latest message
  expect(mounts.length).toBe(10);
  const combined = mounts.filter((e) => e.message.startsWith(COMBINED_PREFIX));
  expect(combined.length).toBe(1);
  expect(combined[0]).toMatchObject({ count: 3, message: `${COMBINED_PREFIX}volume v11 failed` });
});

test("the spam filter lets 25 events of one object through, then drops them; another object is not held", async () => {
  const { client, stored } = fakeClient();
  const b = new CoreEventBroadcaster(client);
  const rec = b.newRecorder({ component: "kubelet", host: "n1" });
  for (let i = 0; i < 30; i++) rec.event(pod, "Normal", `Reason${i}`, "m");
  rec.event({ ...pod, metadata: { ...pod.metadata, name: "other", uid: "u2" } }, "Normal", "Reason0", "m");
  await b.flush();
  expect([...stored.values()].filter((e) => e.involvedObject.name === "web").length).toBe(25);
  expect([...stored.values()].filter((e) => e.involvedObject.name === "other").length).toBe(1);
});

test("--event-qps limits the writes per second after a burst; 0 is unlimited", async () => {
  const timed = async (qps: number) => {
    const { client, stored } = fakeClient();
    const b = new CoreEventBroadcaster(client, { qps, burst: 2 });
    const rec = b.newRecorder({ component: "kubelet", host: "n1" });
    const began = performance.now();
    for (let i = 0; i < 5; i++) rec.event(pod, "Normal", `R${i}`, "m");
    await b.flush();
    expect(stored.size).toBe(5);
    return performance.now() - began;
  };
  // two at once, then three at 10 per second: at least 300 ms
  expect(await timed(10)).toBeGreaterThanOrEqual(280);
  expect(await timed(0)).toBeLessThan(280);
});

test("a bad type is not recorded", async () => {
  const { client, stored } = fakeClient();
  const b = new CoreEventBroadcaster(client);
  b.newRecorder({ component: "kubelet" }).event(pod, "Bad" as "Normal", "R", "m");
  await b.flush();
  expect(stored.size).toBe(0);
});

test("node condition events: each new or changed condition, by its status", () => {
  const conds = (m: string, d: string, p: string, r: string) => [
    { type: "MemoryPressure", status: m }, { type: "DiskPressure", status: d }, { type: "PIDPressure", status: p }, { type: "Ready", status: r },
  ];
  expect(conditionEvents(undefined, conds("False", "False", "False", "True")))
    .toEqual(["NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID", "NodeReady"]);
  expect(conditionEvents(conds("False", "False", "False", "True"), conds("True", "False", "False", "True"))).toEqual(["NodeHasInsufficientMemory"]);
  expect(conditionEvents(conds("False", "True", "True", "True"), conds("False", "False", "False", "False")))
    .toEqual(["NodeHasNoDiskPressure", "NodeHasSufficientPID", "NodeNotReady"]);
  expect(conditionEvents(conds("False", "False", "False", "True"), conds("False", "False", "False", "Unknown"))).toEqual([]);
});
