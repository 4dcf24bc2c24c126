// Preemption through a real `kite apiserver` and `kite scheduler`: a higher-priority pod that fits nowhere
// evicts a lower-priority one gracefully (no kubelet here, so the victim stays terminating), is nominated
// to the node, and is bound there once the victim is gone; a pod whose policy is Never preempts no one.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { type TestServer, startServer } from "../helpers/server.ts";
import {
  type TestScheduler, boundNode, createNode, createPod, eventFor, events, eventsOnceThere, getPod, namespace, ok, pod, startScheduler, until,
} from "../helpers/scheduler.ts";

let s: TestServer;
let sched: TestScheduler;

const priorityClass = (name: string, value: number, preemptionPolicy?: string) =>
  ok(s, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name }, value, ...(preemptionPolicy ? { preemptionPolicy } : {}) });

beforeAll(async () => {
  s = await startServer();
  sched = await startScheduler(s);
  await priorityClass("low", 100);
  await priorityClass("high", 1000);
  await priorityClass("high-never", 1000, "Never");
});
afterAll(async () => {
  await sched?.stop();
  await s?.stop();
});
// each test's node only: a victim's room is never found on another test's node
afterEach(() => ok(s, "DELETE", "/api/v1/nodes"));

/** A node with room for one 1-cpu pod, full with a bound low-priority pod. */
async function fullNode(ns: string, name: string) {
  await createNode(s, name, { cpu: "1" });
  await createPod(s, ns, pod("victim", "1", { priorityClassName: "low" }));
  expect(await boundNode(s, ns, "victim")).toBe(name);
}

test("a higher-priority pod evicts a lower-priority one, is nominated, and is bound once the victim is gone", async () => {
  const ns = await namespace(s, "preempt");
  await fullNode(ns, "preempt-1");
  await createPod(s, ns, pod("preemptor", "1", { priorityClassName: "high" }));

  const preemptor = await until(async () => {
    const p = await getPod(s, ns, "preemptor");
    return p.status.nominatedNodeName ? p : undefined;
  }, "the preemptor to be nominated");
  expect(preemptor.status.nominatedNodeName).toBe("preempt-1");
  expect(preemptor.spec.nodeName).toBeUndefined();
  expect((await eventFor(s, ns, "preemptor", "FailedScheduling")).note).toBe("0/1 nodes are available: 1 Insufficient cpu.");

  // evicted gracefully: the victim is terminating, not gone, with its default grace period
  const victim = await getPod(s, ns, "victim");
  expect(victim.metadata.deletionTimestamp).toBeString();
  expect(victim.metadata.deletionGracePeriodSeconds).toBe(30);
  const preempted = await eventFor(s, ns, "victim", "Preempted");
  expect(preempted).toMatchObject({
    type: "Normal", action: "Preempting", reportingController: "default-scheduler",
    note: `Preempted by ${ns}/preemptor on node preempt-1`,
    regarding: { kind: "Pod", name: "victim", uid: victim.metadata.uid },
    related: { kind: "Pod", name: "preemptor", uid: preemptor.metadata.uid },
  });

  // what a kubelet does once the victim's containers stopped: the pod is gone, its room is free
  await ok(s, "DELETE", `/api/v1/namespaces/${ns}/pods/victim`, { gracePeriodSeconds: 0 });
  expect(await boundNode(s, ns, "preemptor")).toBe("preempt-1");
  expect(await eventsOnceThere(s, ns, "preemptor", "Scheduled")).toHaveLength(1);
});

test("a pod with preemptionPolicy Never waits without evicting anyone", async () => {
  const ns = await namespace(s, "never");
  await fullNode(ns, "never-1");
  await createPod(s, ns, pod("polite", "1", { priorityClassName: "high-never" }));
  expect((await getPod(s, ns, "polite")).spec.preemptionPolicy).toBe("Never");

  const cond = await until(async () => (await getPod(s, ns, "polite")).status.conditions?.find((c: any) => c.type === "PodScheduled"), "the PodScheduled condition");
  expect(cond).toMatchObject({ status: "False", reason: "Unschedulable", message: "0/1 nodes are available: 1 Insufficient cpu." });
  const polite = await getPod(s, ns, "polite");
  expect(polite.status.nominatedNodeName).toBeUndefined();
  expect((await getPod(s, ns, "victim")).metadata.deletionTimestamp).toBeUndefined();
  expect((await events(s, ns, "victim")).filter((e) => e.reason === "Preempted")).toEqual([]);
});
