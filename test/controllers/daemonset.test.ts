// The daemonset controller against a real server and `kite controller-manager`: one pod per eligible node
// (taints, nodeSelector), bound by node affinity and tolerating what upstream's daemon pods tolerate, a
// pod for a new node, a rolling update within maxUnavailable, OnDelete, failed pods replaced with a backoff,
// revisions and the status fields, and
// `kite scheduler` binding each pod to the node its affinity names.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { kubectl as kubectl120, startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { playNode, type NodePlayer } from "../helpers/playnode.ts";
import { createNode, startScheduler } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent, player: NodePlayer;
beforeAll(async () => {
  s = await startServer();
  await createNode(s, "n1", { labels: { disk: "ssd" } });
  await createNode(s, "n2");
  await createNode(s, "n3", { labels: { disk: "ssd" }, taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }] });
  cm = await startControllerManager(s, "daemonset");
  player = playNode(s, "default", "tier=daemon", { delayMs: 150 });
});
afterAll(async () => { await player?.stop(); await cm?.stop(); await s?.stop(); });

const DS = "/apis/apps/v1/namespaces/default/daemonsets";
const kubectl = (...args: string[]) => kubectl120(s, ...args);
const rolloutStatus = (what: string) => kubectl("rollout", "status", what, "--timeout=60s");
const merge = { "content-type": "application/merge-patch+json" };
const ds = async (name: string) => (await s.call("GET", `${DS}/${name}`)).body;
const target = (p: any) => p.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0];
const podsOf = async (app: string) => ((await s.call("GET", `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`)).body.items as any[])
  .filter((p) => !p.metadata.deletionTimestamp).sort((a, b) => target(a).localeCompare(target(b)));
const newDS = (name: string, spec: any = {}, podSpec: any = {}) => s.call("POST", DS, {
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } }, ...spec,
    template: { metadata: { labels: { app: name, tier: "daemon" } }, spec: { containers: [{ name: "c", image: "img:1" }], ...podSpec } },
  },
});
const statusIs = (name: string, want: Record<string, unknown>) => until(async () => {
  const st = (await ds(name)).status ?? {};
  return Object.entries(want).every(([k, v]) => st[k] === v) ? st : undefined;
}, `status ${JSON.stringify(want)}`, 20_000);
const onNodes = (n: number, app: string) => until(async () => { const p = await podsOf(app); return p.length === n ? p : undefined; }, `${n} pods of ${app}`);

test("a DaemonSet runs one pod on each node it tolerates, bound by node affinity, with the daemon tolerations", async () => {
  expect((await newDS("agent")).status).toBe(201);
  const pods = await onNodes(2, "agent");
  expect(pods.map(target)).toEqual(["n1", "n2"]);
  const st = await statusIs("agent", { numberAvailable: 2 });
  expect(st).toMatchObject({ desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 2, numberMisscheduled: 0, observedGeneration: 1 });
  const owner = await ds("agent");
  const revs = (await s.call("GET", "/apis/apps/v1/namespaces/default/controllerrevisions")).body.items.filter((r: any) => r.metadata.ownerReferences?.[0]?.uid === owner.metadata.uid);
  expect(revs.length).toBe(1);
  const hash = revs[0].metadata.labels["controller-revision-hash"];
  expect(revs[0].metadata.name).toBe(`agent-${hash}`);
  expect(revs[0].revision).toBe(1);
  for (const p of pods) {
    expect(p.metadata.name).toStartWith("agent-");
    expect(p.metadata.labels["controller-revision-hash"]).toBe(hash);
    expect(p.metadata.ownerReferences[0]).toMatchObject({ kind: "DaemonSet", name: "agent", uid: owner.metadata.uid, controller: true });
    expect(p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([{ matchFields: [{ key: "metadata.name", operator: "In", values: [target(p)] }] }]);
    expect(p.spec.tolerations.map((t: any) => `${t.key}:${t.operator}:${t.effect}`).sort()).toEqual([
      "node.kubernetes.io/disk-pressure:Exists:NoSchedule", "node.kubernetes.io/memory-pressure:Exists:NoSchedule",
      "node.kubernetes.io/not-ready:Exists:NoExecute", "node.kubernetes.io/pid-pressure:Exists:NoSchedule",
      "node.kubernetes.io/unreachable:Exists:NoExecute", "node.kubernetes.io/unschedulable:Exists:NoSchedule",
    ]);
  }
  const notes = ((await s.call("GET", "/apis/events.k8s.io/v1/namespaces/default/events")).body.items as any[]).filter((e) => e.regarding?.name === "agent").map((e) => e.note).sort();
  expect(notes).toEqual(pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
});

test("a nodeSelector and a toleration choose the nodes; a new node gets its pod", async () => {
  expect((await newDS("ssd", {}, { nodeSelector: { disk: "ssd" }, tolerations: [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" }] })).status).toBe(201);
  expect((await onNodes(2, "ssd")).map(target)).toEqual(["n1", "n3"]);
  await createNode(s, "n4", { labels: { disk: "ssd" } });
  expect((await onNodes(3, "agent")).map(target)).toEqual(["n1", "n2", "n4"]);
  expect((await onNodes(3, "ssd")).map(target)).toEqual(["n1", "n3", "n4"]);
  await statusIs("agent", { desiredNumberScheduled: 3, numberAvailable: 3 });
});

test("a rolling update replaces one node's pod at a time (maxUnavailable 1) until every pod is new; kubectl rolls it back", async () => {
  const before = await statusIs("agent", { numberAvailable: 3, updatedNumberScheduled: 3 });
  expect((await s.call("PATCH", `${DS}/agent`, { spec: { template: { spec: { containers: [{ name: "c", image: "img:2" }] } } } }, merge)).status).toBe(200);
  const rollout = rolloutStatus("daemonset/agent");
  let fewestAvailable = 3;
  const ready = (p: any) => (p.status?.conditions ?? []).some((c: any) => c.type === "Ready" && c.status === "True");
  await until(async () => {
    const pods = await podsOf("agent");
    fewestAvailable = Math.min(fewestAvailable, new Set(pods.filter(ready).map(target)).size);
    return pods.length === 3 && pods.every((p) => p.spec.containers[0].image === "img:2" && ready(p)) ? true : undefined;
  }, "every pod updated and ready", 20_000);
  expect(fewestAvailable).toBe(2);
  const r = await rollout;
  expect(r.code).toBe(0);
  expect(r.out).toContain(`daemon set "agent" successfully rolled out`);
  const st = await statusIs("agent", { updatedNumberScheduled: 3, numberAvailable: 3, observedGeneration: 2 });
  expect(st.desiredNumberScheduled).toBe(before.desiredNumberScheduled);
  const revs = (await s.call("GET", "/apis/apps/v1/namespaces/default/controllerrevisions")).body.items.filter((r: any) => r.metadata.ownerReferences?.[0]?.name === "agent");
  expect(revs.map((r: any) => r.revision).sort()).toEqual([1, 2]);
  const hash = revs.find((r: any) => r.revision === 2).metadata.labels["controller-revision-hash"];
  expect((await podsOf("agent")).every((p) => p.metadata.labels["controller-revision-hash"] === hash)).toBe(true);
  // kubectl rolls back to the first revision, which becomes revision 3
  expect((await kubectl("rollout", "undo", "daemonset/agent")).code).toBe(0);
  expect((await rolloutStatus("daemonset/agent")).code).toBe(0);
  await until(async () => { const p = await podsOf("agent"); return p.length === 3 && p.every((x) => x.spec.containers[0].image === "img:1") ? p : undefined; }, "every pod back at img:1", 20_000);
  const after = (await s.call("GET", "/apis/apps/v1/namespaces/default/controllerrevisions")).body.items.filter((r: any) => r.metadata.ownerReferences?.[0]?.name === "agent");
  expect(after.map((r: any) => [r.metadata.name, r.revision]).sort((a: any, b: any) => a[1] - b[1]))
    .toEqual([[revs.find((r: any) => r.revision === 2).metadata.name, 2], [revs.find((r: any) => r.revision === 1).metadata.name, 3]]);
});

test("OnDelete keeps old pods until they are deleted", async () => {
  await s.call("PATCH", `${DS}/ssd`, { spec: { updateStrategy: { type: "OnDelete", rollingUpdate: null }, template: { spec: { containers: [{ name: "c", image: "img:2" }] } } } }, merge);
  await statusIs("ssd", { observedGeneration: 2, updatedNumberScheduled: 0, desiredNumberScheduled: 3 });
  await Bun.sleep(300);
  expect((await podsOf("ssd")).map((p) => p.spec.containers[0].image)).toEqual(["img:1", "img:1", "img:1"]);
  const victim = (await podsOf("ssd"))[0];
  await s.call("DELETE", `/api/v1/namespaces/default/pods/${victim.metadata.name}`);
  const pods = await until(async () => { const p = await podsOf("ssd"); return p.length === 3 && p[0].metadata.uid !== victim.metadata.uid ? p : undefined; }, "a new pod on n1");
  expect(pods.map((p) => p.spec.containers[0].image)).toEqual(["img:2", "img:1", "img:1"]);
  await statusIs("ssd", { updatedNumberScheduled: 1 });
});

test("a failed daemon pod is replaced, and one failing again soon after only once a backoff of 1 s has passed", async () => {
  const fail = (p: any) => s.call("PATCH", `/api/v1/namespaces/default/pods/${p.metadata.name}/status`, { status: { phase: "Failed" } }, merge);
  const ready = (p: any) => (p.status?.conditions ?? []).some((c: any) => c.type === "Ready" && c.status === "True");
  const replaced = (old: any) => until(async () => {
    const p = (await podsOf("agent")).find((x) => target(x) === "n2");
    return p && p.metadata.uid !== old.metadata.uid && ready(p) ? p : undefined;
  }, "a new ready pod on n2", 20_000);
  const first = (await podsOf("agent")).find((p) => target(p) === "n2");
  const failedAt = Date.now();
  await fail(first);
  const second = await replaced(first);
  const note = `Found failed daemon pod default/${first.metadata.name} on node n2, will try to kill it`;
  await until(async () => ((await s.call("GET", "/apis/events.k8s.io/v1/namespaces/default/events")).body.items as any[]).find((e) => e.reason === "FailedDaemonPod" && e.note === note), "the FailedDaemonPod event");
  await fail(second);
  await replaced(second);
  // the first deletion came after failedAt; the second waits 1 s after it
  expect(Date.now() - failedAt).toBeGreaterThanOrEqual(1000);
});

test("the scheduler binds each daemon pod to the node its affinity names", async () => {
  const sched = await startScheduler(s);
  try {
    const pods = await until(async () => {
      const p = [...await podsOf("agent"), ...await podsOf("ssd")];
      return p.length === 6 && p.every((x) => x.spec.nodeName) ? p : undefined;
    }, "6 daemon pods bound", 20_000);
    for (const p of pods) expect(p.spec.nodeName).toBe(target(p));
    expect(pods.filter((p) => p.spec.nodeName === "n3").map((p) => p.metadata.labels.app)).toEqual(["ssd"]);
  } finally {
    await sched.stop();
  }
});
