// The statefulset controller against a real server and `kite controller-manager`: ordered start (each pod
// only once the one before is Ready) with stable identities and claims, scale-down from the highest
// ordinal keeping claims, a rolling update from the highest ordinal honouring the partition, Parallel
// and OnDelete, controller revisions and the status fields.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { kubectl as kubectl120, startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { markReady, playNode } from "../helpers/playnode.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
beforeAll(async () => {
  s = await startServer();
  cm = await startControllerManager(s, "statefulset");
});
afterAll(async () => { await cm?.stop(); await s?.stop(); });

const STS = "/apis/apps/v1/namespaces/default/statefulsets";
const kubectl = (...args: string[]) => kubectl120(s, ...args);
const rolloutStatus = (what: string) => kubectl("rollout", "status", what, "--timeout=60s");
const merge = { "content-type": "application/merge-patch+json" };
const sts = async (name: string) => (await s.call("GET", `${STS}/${name}`)).body;
const patch = (name: string, body: any) => s.call("PATCH", `${STS}/${name}`, body, merge);
const podsOf = async (app: string) => ((await s.call("GET", `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`)).body.items as any[])
  .filter((p) => !p.metadata.deletionTimestamp).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
const names = (pods: any[]) => pods.map((p) => p.metadata.name);
const pod = async (name: string) => (await s.call("GET", `/api/v1/namespaces/default/pods/${name}`)).body;
const events = async (name: string) => ((await s.call("GET", "/apis/events.k8s.io/v1/namespaces/default/events")).body.items as any[])
  .filter((e) => e.regarding?.name === name).sort((a, b) => a.eventTime.localeCompare(b.eventTime));
const newSet = (name: string, replicas: number, spec: any = {}) => s.call("POST", STS, {
  metadata: { name },
  spec: {
    replicas, serviceName: `${name}-svc`, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "img:1" }] } }, ...spec,
  },
});
const statusIs = (name: string, want: Record<string, unknown>) => until(async () => {
  const st = (await sts(name)).status ?? {};
  return Object.entries(want).every(([k, v]) => st[k] === v) ? st : undefined;
}, `status ${JSON.stringify(want)}`, 20_000);

test("a StatefulSet of 3 starts its pods in order, each only after the one before is Ready, with identities and claims", async () => {
  const claim = { metadata: { name: "www" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } };
  expect((await newSet("web", 3, { volumeClaimTemplates: [claim] })).status).toBe(201);
  for (const n of [0, 1, 2]) {
    const pods = await until(async () => { const p = await podsOf("web"); return p.length === n + 1 ? p : undefined; }, `web-${n}`);
    expect(names(pods)).toEqual([0, 1, 2].slice(0, n + 1).map((i) => `web-${i}`));
    // the next pod waits for this one to be Ready
    await Bun.sleep(400);
    expect(names(await podsOf("web"))).toEqual(names(pods));
    await markReady(s, await pod(`web-${n}`));
  }
  const st = await statusIs("web", { readyReplicas: 3 });
  expect(st).toMatchObject({ replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, observedGeneration: 1, collisionCount: 0 });
  expect(st.currentRevision).toBe(st.updateRevision);
  const set = await sts("web");
  for (const p of await podsOf("web")) {
    const name = p.metadata.name;
    expect(p.spec.hostname).toBe(name);
    expect(p.spec.subdomain).toBe("web-svc");
    expect(p.metadata.labels).toMatchObject({ "statefulset.kubernetes.io/pod-name": name, "controller-revision-hash": st.updateRevision });
    expect(p.metadata.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(p.spec.volumes).toContainEqual({ name: "www", persistentVolumeClaim: { claimName: `www-${name}` } });
    const pvc = (await s.call("GET", `/api/v1/namespaces/default/persistentvolumeclaims/www-${name}`)).body;
    expect(pvc.metadata.labels).toEqual({ app: "web" });
    expect(pvc.spec.resources.requests.storage).toBe("1Gi");
  }
  const revs = (await s.call("GET", "/apis/apps/v1/namespaces/default/controllerrevisions")).body.items.filter((r: any) => r.metadata.ownerReferences?.[0]?.uid === set.metadata.uid);
  expect(revs.map((r: any) => [r.metadata.name, r.revision])).toEqual([[st.updateRevision, 1]]);
  expect(revs[0].data.spec.template.spec.containers[0].image).toBe("img:1");
  const notes = (await events("web")).map((e) => e.note);
  expect(notes).toContain("create Claim www-web-0 Pod web-0 in StatefulSet web success");
  expect(notes.filter((n) => n.startsWith("create Pod"))).toEqual([0, 1, 2].map((i) => `create Pod web-${i} in StatefulSet web successful`));
});

test("scaling down removes the highest ordinal first and keeps the claims", async () => {
  expect((await patch("web", { spec: { replicas: 1 } })).status).toBe(200);
  const seen: string[][] = [];
  await until(async () => { const n = names(await podsOf("web")); seen.push(n); return n.length === 1 ? n : undefined; }, "1 pod left");
  expect(seen.every((n) => n.every((x, i) => x === `web-${i}`))).toBe(true);
  expect(names(await podsOf("web"))).toEqual(["web-0"]);
  const deletes = (await until(async () => { const e = (await events("web")).filter((x) => x.reason === "SuccessfulDelete"); return e.length === 2 ? e : undefined; }, "2 deletes")).map((e) => e.note);
  expect(deletes).toEqual(["delete Pod web-2 in StatefulSet web successful", "delete Pod web-1 in StatefulSet web successful"]);
  for (const i of [0, 1, 2]) expect((await s.call("GET", `/api/v1/namespaces/default/persistentvolumeclaims/www-web-${i}`)).status).toBe(200);
  await statusIs("web", { replicas: 1, readyReplicas: 1 });
});

test("a rolling update replaces pods from the highest ordinal down to the partition, then all once the partition is 0", async () => {
  const player = playNode(s, "default", "app=web", { delayMs: 100 });
  try {
    await patch("web", { spec: { replicas: 3 } });
    const before = await statusIs("web", { readyReplicas: 3, replicas: 3 });
    await patch("web", { spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } }, template: { spec: { containers: [{ name: "c", image: "img:2" }] } } } });
    const st = await statusIs("web", { updatedReplicas: 2, readyReplicas: 3 });
    expect(st.updateRevision).not.toBe(before.updateRevision);
    expect(st.currentRevision).toBe(before.currentRevision);
    const pods = await podsOf("web");
    expect(pods.map((p) => [p.metadata.name, p.spec.containers[0].image, p.metadata.labels["controller-revision-hash"]])).toEqual([
      ["web-0", "img:1", before.updateRevision], ["web-1", "img:2", st.updateRevision], ["web-2", "img:2", st.updateRevision],
    ]);
    const partitioned = await rolloutStatus("statefulset/web");
    expect(partitioned.code).toBe(0);
    expect(partitioned.out).toContain("partitioned roll out complete: 2 new pods have been updated...");
    await patch("web", { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
    const r = await rolloutStatus("statefulset/web");
    expect(r.code).toBe(0);
    const done = await statusIs("web", { updatedReplicas: 3, readyReplicas: 3, currentReplicas: 3 });
    // kubectl reports a set with a partition (0 is the default) as a partitioned roll-out
    expect(r.out).toContain("partitioned roll out complete: 3 new pods have been updated...");
    expect(done.currentRevision).toBe(done.updateRevision);
    expect((await podsOf("web")).map((p) => p.spec.containers[0].image)).toEqual(["img:2", "img:2", "img:2"]);
    // web-2, web-1 then web-0 were replaced, in that order
    const deletes = (await events("web")).filter((x) => x.reason === "SuccessfulDelete").map((e) => e.note).slice(2);
    expect(deletes).toEqual([2, 1, 0].map((i) => `delete Pod web-${i} in StatefulSet web successful`));
    const revs = (await s.call("GET", "/apis/apps/v1/namespaces/default/controllerrevisions")).body.items.filter((r: any) => r.metadata.ownerReferences?.[0]?.name === "web");
    expect(revs.map((r: any) => [r.metadata.name, r.revision]).sort((a: any, b: any) => a[1] - b[1])).toEqual([[before.updateRevision, 1], [st.updateRevision, 2]]);
    // kubectl rolls back to the first revision, which becomes revision 3
    const undo = await kubectl("rollout", "undo", "statefulset/web");
    expect(undo.code).toBe(0);
    const back = await statusIs("web", { updateRevision: before.updateRevision, updatedReplicas: 3, readyReplicas: 3, currentReplicas: 3 });
    expect(back.currentRevision).toBe(before.updateRevision);
    expect((await podsOf("web")).map((p) => p.spec.containers[0].image)).toEqual(["img:1", "img:1", "img:1"]);
    const after = (await s.call("GET", "/apis/apps/v1/namespaces/default/controllerrevisions")).body.items.filter((r: any) => r.metadata.ownerReferences?.[0]?.name === "web");
    expect(after.map((r: any) => [r.metadata.name, r.revision]).sort((a: any, b: any) => a[1] - b[1])).toEqual([[st.updateRevision, 2], [before.updateRevision, 3]]);
  } finally {
    await player.stop();
  }
});

test("Parallel creates every pod at once; OnDelete replaces a pod only when it is deleted", async () => {
  expect((await newSet("par", 3, { podManagementPolicy: "Parallel", updateStrategy: { type: "OnDelete" } })).status).toBe(201);
  // none is Ready, yet all three are created
  expect(names(await until(async () => { const p = await podsOf("par"); return p.length === 3 ? p : undefined; }, "3 pods"))).toEqual(["par-0", "par-1", "par-2"]);
  const before = await statusIs("par", { replicas: 3, readyReplicas: 0 });
  await patch("par", { spec: { template: { spec: { containers: [{ name: "c", image: "img:2" }] } } } });
  const st = await until(async () => { const x = (await sts("par")).status; return x.updateRevision !== before.updateRevision ? x : undefined; }, "a new update revision");
  expect(st).toMatchObject({ currentRevision: before.currentRevision, updatedReplicas: 0, currentReplicas: 3 });
  await Bun.sleep(300);
  expect((await podsOf("par")).map((p) => p.spec.containers[0].image)).toEqual(["img:1", "img:1", "img:1"]);
  const old = await pod("par-1");
  await s.call("DELETE", "/api/v1/namespaces/default/pods/par-1");
  const made = await until(async () => { const p = await pod("par-1"); return p.metadata?.uid && p.metadata.uid !== old.metadata.uid ? p : undefined; }, "par-1 again");
  expect(made.spec.containers[0].image).toBe("img:2");
  expect(made.metadata.labels["controller-revision-hash"]).toBe(st.updateRevision);
  await statusIs("par", { updatedReplicas: 1, currentReplicas: 2 });
});

test("a failed pod is made again under the same name, and the set says so", async () => {
  const old = await pod("par-2");
  await s.call("PATCH", "/api/v1/namespaces/default/pods/par-2/status", { status: { phase: "Failed" } }, merge);
  const made = await until(async () => { const p = await pod("par-2"); return p.metadata?.uid && p.metadata.uid !== old.metadata.uid ? p : undefined; }, "par-2 again");
  expect(made.metadata.labels["statefulset.kubernetes.io/pod-name"]).toBe("par-2");
  await until(async () => (await events("par")).find((e) => e.reason === "RecreatingFailedPod" && e.note === "StatefulSet default/par is recreating failed Pod par-2"), "the RecreatingFailedPod event");
});
