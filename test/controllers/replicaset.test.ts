// The replicaset and replicationcontroller controllers against a real server and `kite controller-manager`:
// scaling with upstream's events, no double creates, adoption and release of pods, which pods go first
// on a scale-down, status (ready, available after minReadySeconds), and ReplicationControllers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { markReady, playNode } from "../helpers/playnode.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
beforeAll(async () => {
  s = await startServer();
  cm = await startControllerManager(s, "replicaset,deployment,replicationcontroller");
});
afterAll(async () => { await cm?.stop(); await s?.stop(); });

const RS = "/apis/apps/v1/namespaces/default/replicasets";
const podsOf = async (sel: string) => (await s.call("GET", `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(sel)}`)).body.items as any[];
const rs = async (name: string) => (await s.call("GET", `${RS}/${name}`)).body;
const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: "c", image: "img" }] } });
const newRS = (name: string, replicas: number, extra: any = {}) =>
  s.call("POST", RS, { metadata: { name }, spec: { replicas, selector: { matchLabels: { app: name } }, template: template(name), ...extra } });
const scale = (name: string, replicas: number) => s.call("PATCH", `${RS}/${name}`, { spec: { replicas } }, { "content-type": "application/merge-patch+json" });
const events = async (name: string) => ((await s.call("GET", "/apis/events.k8s.io/v1/namespaces/default/events")).body.items as any[]).filter((e) => e.regarding?.name === name);
const active = (pods: any[]) => pods.filter((p) => !p.metadata.deletionTimestamp);

test("a ReplicaSet creates its pods (owned, named after it, with upstream's events) and reports their readiness", async () => {
  expect((await newRS("web", 3)).status).toBe(201);
  const pods = await until(async () => { const p = await podsOf("app=web"); return p.length === 3 ? p : undefined; }, "3 pods");
  const owner = await rs("web");
  for (const p of pods) {
    expect(p.metadata.name).toStartWith("web-");
    expect(p.metadata.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  }
  await until(async () => ((await rs("web")).status?.replicas === 3 ? true : undefined), "status.replicas 3");
  expect((await rs("web")).status).toMatchObject({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
  for (const p of pods) await markReady(s, p);
  await until(async () => ((await rs("web")).status?.availableReplicas === 3 ? true : undefined), "3 available");
  expect((await rs("web")).status).toMatchObject({ readyReplicas: 3, availableReplicas: 3 });
  const created = (await until(async () => { const e = (await events("web")).filter((x) => x.reason === "SuccessfulCreate"); return e.length === 3 ? e : undefined; }, "3 events")).map((e) => e.note).sort();
  expect(created).toEqual(pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
  expect(created.length).toBe(3);
});

test("scaling down deletes not-ready pods before ready ones, and says so", async () => {
  expect((await newRS("rank", 4)).status).toBe(201);
  const pods = await until(async () => { const p = await podsOf("app=rank"); return p.length === 4 ? p : undefined; }, "4 pods");
  const ready = pods.slice(0, 2);
  for (const p of ready) await markReady(s, p);
  await until(async () => ((await rs("rank")).status?.readyReplicas === 2 ? true : undefined), "2 ready");
  await scale("rank", 2);
  const left = await until(async () => { const p = active(await podsOf("app=rank")); return p.length === 2 ? p : undefined; }, "2 pods left");
  expect(left.map((p) => p.metadata.name).sort()).toEqual(ready.map((p) => p.metadata.name).sort());
  const deleted = await until(async () => { const e = (await events("rank")).filter((x) => x.reason === "SuccessfulDelete"); return e.length === 2 ? e : undefined; }, "2 delete events");
  expect(deleted.map((e) => e.note).sort()).toEqual(pods.slice(2).map((p) => `Deleted pod: ${p.metadata.name}`).sort());
});

test("a large ReplicaSet is created without a double create while the cache catches up", async () => {
  expect((await newRS("many", 40)).status).toBe(201);
  await until(async () => ((await podsOf("app=many")).length >= 40 ? true : undefined), "40 pods");
  await Bun.sleep(1000);
  expect((await podsOf("app=many")).length).toBe(40);
  expect((await rs("many")).status.replicas).toBe(40);
});

test("an orphan pod that matches is adopted; a pod whose labels stop matching is released and replaced", async () => {
  const orphan = await s.call("POST", "/api/v1/namespaces/default/pods", { metadata: { name: "stray", labels: { app: "adopt" } }, spec: { containers: [{ name: "c", image: "img" }] } });
  expect(orphan.status).toBe(201);
  expect((await newRS("adopt", 2)).status).toBe(201);
  const owner = await rs("adopt");
  await until(async () => ((await podsOf("app=adopt")).length === 2 ? true : undefined), "2 pods");
  await Bun.sleep(500);
  const pods = await podsOf("app=adopt");
  expect(pods.length).toBe(2);
  const stray = pods.find((p) => p.metadata.name === "stray");
  expect(stray.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "ReplicaSet", name: "adopt", uid: owner.metadata.uid, controller: true })]);

  await s.call("PATCH", "/api/v1/namespaces/default/pods/stray", { metadata: { labels: { app: "gone" } } }, { "content-type": "application/merge-patch+json" });
  await until(async () => (((await s.call("GET", "/api/v1/namespaces/default/pods/stray")).body.metadata.ownerReferences ?? []).length === 0 ? true : undefined), "the pod to be released");
  await until(async () => ((await podsOf("app=adopt")).length === 2 ? true : undefined), "a replacement");
  expect((await podsOf("app=adopt")).every((p) => p.metadata.name !== "stray")).toBe(true);
});

test("availableReplicas waits minReadySeconds after readiness", async () => {
  expect((await newRS("slow", 2, { minReadySeconds: 2 })).status).toBe(201);
  const player = playNode(s, "default", "app=slow");
  await until(async () => ((await rs("slow")).status?.readyReplicas === 2 ? true : undefined), "2 ready");
  expect((await rs("slow")).status.availableReplicas).toBe(0);
  await until(async () => ((await rs("slow")).status?.availableReplicas === 2 ? true : undefined), "2 available", 15_000);
  await player.stop();
});

test("pods the server refuses set ReplicaFailure and a FailedCreate event; once they can be made the condition goes", async () => {
  const t = template("failing");
  (t.spec as any).priorityClassName = "later";
  expect((await s.call("POST", RS, { metadata: { name: "failing" }, spec: { replicas: 2, selector: { matchLabels: { app: "failing" } }, template: t } })).status).toBe(201);
  const cond = await until(async () => (await rs("failing")).status?.conditions?.find((c: any) => c.type === "ReplicaFailure"), "the ReplicaFailure condition");
  expect(cond).toMatchObject({ status: "True", reason: "FailedCreate" });
  expect(cond.message).toContain("no PriorityClass with name later was found");
  const failed = await until(async () => (await events("failing")).find((e) => e.reason === "FailedCreate"), "a FailedCreate event");
  expect(failed).toMatchObject({ type: "Warning" });
  expect(failed.note).toStartWith("Error creating: ");
  expect(failed.note).toContain("no PriorityClass with name later was found");
  expect(await podsOf("app=failing")).toEqual([]);
  expect((await s.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", { metadata: { name: "later" }, value: 10 })).status).toBe(201);
  await until(async () => { const r = await rs("failing"); return r.status?.replicas === 2 && !r.status.conditions?.length ? true : undefined; }, "2 pods and no ReplicaFailure", 20_000);
});

test("a ReplicationController keeps its replicas, owning its pods as a ReplicationController", async () => {
  const r = await s.call("POST", "/api/v1/namespaces/default/replicationcontrollers", { metadata: { name: "legacy" }, spec: { replicas: 2, selector: { app: "legacy" }, template: template("legacy") } });
  expect(r.status).toBe(201);
  const pods = await until(async () => { const p = await podsOf("app=legacy"); return p.length === 2 ? p : undefined; }, "2 pods");
  expect(pods.every((p) => p.metadata.ownerReferences?.[0]?.kind === "ReplicationController" && p.metadata.ownerReferences[0].uid === r.body.metadata.uid)).toBe(true);
  await s.call("DELETE", `/api/v1/namespaces/default/pods/${pods[0].metadata.name}`);
  await until(async () => { const p = active(await podsOf("app=legacy")); return p.length === 2 && !p.some((x) => x.metadata.name === pods[0].metadata.name) ? true : undefined; }, "a replacement pod");
  // the status follows the replacement (written after the pod is created)
  await until(async () => {
    const st = (await s.call("GET", "/api/v1/namespaces/default/replicationcontrollers/legacy")).body.status;
    return st?.replicas === 2 && st?.observedGeneration === 1 ? true : undefined;
  }, "status.replicas 2 at generation 1");
});
