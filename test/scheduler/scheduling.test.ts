// `kite scheduler` against a real `kite apiserver` with Node objects only: pods land on the node that fits,
// with the Scheduled event and PodScheduled=True; a pod that fits nowhere stays Pending with upstream's
// FailedScheduling message, and is bound once the cluster changes so that it fits; spreading, anti-affinity
// and priority order; the metrics of what happened.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { type TestServer, startServer } from "../helpers/server.ts";
import {
  type TestScheduler, boundNode, createNode, createPod, eventFor, events, eventsOnceThere, getPod, namespace, ok, pod, startScheduler, until,
} from "../helpers/scheduler.ts";

let s: TestServer;
let sched: TestScheduler;

beforeAll(async () => {
  s = await startServer();
  sched = await startScheduler(s);
});
afterAll(async () => {
  await sched?.stop();
  await s?.stop();
});

// Every test has nodes of its own, gone after it so that failure messages count only its own; every pod
// selects its test's nodes by the label `test`, so that one left pending never lands on a later test's.
afterEach(() => ok(s, "DELETE", "/api/v1/nodes"));
const only = (t: string) => ({ nodeSelector: { test: t } });

test("a pod lands on the only node that fits, with the Scheduled event and PodScheduled=True", async () => {
  const ns = await namespace(s, "fits");
  const t = { test: "fits" };
  await createNode(s, "fits-small", { cpu: "1", labels: t });
  await createNode(s, "fits-gpu", { cpu: "8", labels: t, taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] });
  await createNode(s, "fits-other", { cpu: "8", labels: { ...t, disk: "hdd" } });
  await createNode(s, "fits-right", { cpu: "8", labels: { ...t, disk: "ssd" } });
  await createPod(s, ns, pod("web", "2", { nodeSelector: { ...t, disk: "ssd" } }));

  expect(await boundNode(s, ns, "web")).toBe("fits-right");
  const p = await getPod(s, ns, "web");
  expect(p.status.conditions).toContainEqual(expect.objectContaining({ type: "PodScheduled", status: "True" }));
  const e = await eventFor(s, ns, "web", "Scheduled");
  expect(e).toMatchObject({
    type: "Normal", action: "Binding", note: `Successfully assigned ${ns}/web to fits-right`,
    reportingController: "default-scheduler", regarding: { kind: "Pod", namespace: ns, name: "web", uid: p.metadata.uid },
  });
});

test("a pod that fits nowhere stays Pending with upstream's message, then is bound once a node fits", async () => {
  const ns = await namespace(s, "nowhere");
  const t = { test: "nowhere" };
  await createNode(s, "nowhere-gpu", { cpu: "8", labels: t, taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] });
  await createNode(s, "nowhere-a", { cpu: "1", labels: t });
  await createNode(s, "nowhere-b", { cpu: "1", labels: t });
  await createPod(s, ns, pod("big", "2", only("nowhere")));

  const message = "0/3 nodes are available: 1 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate, 2 Insufficient cpu.";
  const e = await eventFor(s, ns, "big", "FailedScheduling");
  expect(e).toMatchObject({ type: "Warning", action: "Scheduling", note: message, reportingController: "default-scheduler" });
  const cond = await until(async () => (await getPod(s, ns, "big")).status.conditions?.find((c: any) => c.type === "PodScheduled"), "the PodScheduled condition");
  expect(cond).toMatchObject({ status: "False", reason: "Unschedulable", message });
  const p = await getPod(s, ns, "big");
  expect(p.status.phase).toBe("Pending");
  expect(p.spec.nodeName).toBeUndefined();

  // enlarging a node is a cluster change that moves the pod back to be tried, without a restart
  const n = await ok(s, "GET", "/api/v1/nodes/nowhere-b");
  n.status.capacity.cpu = n.status.allocatable.cpu = "4";
  await ok(s, "PUT", "/api/v1/nodes/nowhere-b/status", n);
  expect(await boundNode(s, ns, "big")).toBe("nowhere-b");
  expect(await eventsOnceThere(s, ns, "big", "Scheduled")).toHaveLength(1);
});

test("a new node takes a pod no node could run (the only one cordoned), without a restart", async () => {
  const ns = await namespace(s, "newnode");
  const t = { test: "newnode" };
  await createNode(s, "newnode-cordoned", { labels: t, unschedulable: true });
  await createPod(s, ns, pod("waits", undefined, only("newnode")));
  expect((await eventFor(s, ns, "waits", "FailedScheduling")).note).toBe("0/1 nodes are available: 1 node(s) were unschedulable.");
  await createNode(s, "newnode-added", { labels: t });
  expect(await boundNode(s, ns, "waits")).toBe("newnode-added");
});

test("deleting a bound pod frees its room for a pending one", async () => {
  const ns = await namespace(s, "freed");
  await createNode(s, "freed-1", { cpu: "1", labels: { test: "freed" } });
  await createPod(s, ns, pod("first", "1", only("freed")));
  expect(await boundNode(s, ns, "first")).toBe("freed-1");
  await createPod(s, ns, pod("second", "1", only("freed")));
  // equal priorities: no preemption, the second waits
  expect((await eventFor(s, ns, "second", "FailedScheduling")).note).toBe("0/1 nodes are available: 1 Insufficient cpu.");
  expect((await getPod(s, ns, "first")).metadata.deletionTimestamp).toBeUndefined();
  await ok(s, "DELETE", `/api/v1/namespaces/${ns}/pods/first`, { gracePeriodSeconds: 0 });
  expect(await boundNode(s, ns, "second")).toBe("freed-1");
});

test("a topology spread constraint (maxSkew 1 over zones) spreads pods evenly over zones, not nodes", async () => {
  const ns = await namespace(s, "spread");
  const zone = (z: string) => ({ test: "spread", "topology.kubernetes.io/zone": z });
  // three nodes in zone a and one in b: spreading over nodes alone would put three pods in a
  for (const n of ["a1", "a2", "a3"]) await createNode(s, `spread-${n}`, { labels: zone("a") });
  await createNode(s, "spread-b1", { labels: zone("b") });
  const app = { app: "web" };
  const spec = {
    ...only("spread"),
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: app } }],
  };
  const names = ["web-1", "web-2", "web-3", "web-4"];
  await Promise.all(names.map((n) => createPod(s, ns, pod(n, "100m", spec, app))));
  const nodes = await Promise.all(names.map((n) => boundNode(s, ns, n)));
  const perZone = { a: nodes.filter((n) => n.startsWith("spread-a")).length, b: nodes.filter((n) => n === "spread-b1").length };
  expect(perZone).toEqual({ a: 2, b: 2 });
});

test("required pod anti-affinity keeps pods of one app on different nodes", async () => {
  const ns = await namespace(s, "apart");
  await createNode(s, "apart-1", { labels: { test: "apart" } });
  await createNode(s, "apart-2", { labels: { test: "apart" } });
  const app = { app: "db" };
  const spec = {
    ...only("apart"),
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: app } }] } },
  };
  await createPod(s, ns, pod("db-1", undefined, spec, app));
  const first = await boundNode(s, ns, "db-1");
  await createPod(s, ns, pod("db-2", undefined, spec, app));
  const second = await boundNode(s, ns, "db-2");
  expect(new Set([first, second])).toEqual(new Set(["apart-1", "apart-2"]));
  await createPod(s, ns, pod("db-3", undefined, spec, app));
  expect((await eventFor(s, ns, "db-3", "FailedScheduling")).note).toContain("2 node(s) didn't match pod anti-affinity rules");
  expect((await getPod(s, ns, "db-3")).spec.nodeName).toBeUndefined();
});

test("priority order: a higher-priority pod created after a lower one takes the last slot", async () => {
  const ns = await namespace(s, "prio");
  for (const [name, value] of [["prio-low", 100], ["prio-high", 1000]] as const) {
    await ok(s, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name }, value });
  }
  await createPod(s, ns, pod("low", "1", { ...only("prio"), priorityClassName: "prio-low" }));
  await eventFor(s, ns, "low", "FailedScheduling");
  await createPod(s, ns, pod("high", "1", { ...only("prio"), priorityClassName: "prio-high" }));
  expect((await getPod(s, ns, "high")).spec.priority).toBe(1000);
  const failed = await eventFor(s, ns, "high", "FailedScheduling");
  // both have failed once; past the high one's 1 s backoff, a new node moves both to the active queue at once
  await Bun.sleep(Math.max(0, Date.parse(failed.eventTime) + 1100 - Date.now()));
  await createNode(s, "prio-1", { cpu: "1", labels: { test: "prio" } });
  expect(await boundNode(s, ns, "high")).toBe("prio-1");
  await until(async () => (await events(s, ns, "low")).filter((e) => e.reason === "FailedScheduling").length >= 2 || undefined, "the low-priority pod to be tried again");
  expect((await getPod(s, ns, "low")).spec.nodeName).toBeUndefined();
});

test("/metrics on the insecure port counts the attempts by result and the pending pods by queue", async () => {
  const m = await sched.metrics();
  const value = (series: string) => Number(m.split("\n").find((l) => l.startsWith(`${series} `))?.slice(series.length + 1));
  expect(value('scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"}')).toBeGreaterThanOrEqual(12);
  expect(value('scheduler_schedule_attempts_total{profile="default-scheduler",result="unschedulable"}')).toBeGreaterThanOrEqual(6);
  // left pending by the tests above: db-3 and low, in the unschedulable queue
  expect(value('scheduler_pending_pods{queue="unschedulable"}') + value('scheduler_pending_pods{queue="backoff"}')).toBe(2);
  expect(value('scheduler_pending_pods{queue="active"}')).toBe(0);
});
