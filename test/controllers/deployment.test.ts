// The deployment controller (with the replicaset controller) against a real server and `kite
// controller-manager`, pods made Ready by a test that plays the node (and, once, by a real node agent):
// ReplicaSets named by the template's hash, revisions, rolling updates within maxSurge/maxUnavailable at
// every observed step, kubectl 1.20's rollout status/undo/pause/resume, revisionHistoryLimit, the
// progress deadline, Recreate, and proportional scaling mid-rollout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { kubectl as kubectl120, startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { alive, containerPids, startNodeAgent } from "../helpers/nodeagent.ts";
import { playNode } from "../helpers/playnode.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const D = "/apis/apps/v1/namespaces/default/deployments";

let s: TestServer, cm: TestComponent;
beforeAll(async () => {
  s = await startServer();
  cm = await startControllerManager(s, "replicaset,deployment,replicationcontroller");
});
afterAll(async () => { await cm?.stop(); await s?.stop(); });

const kubectl = (...args: string[]) => kubectl120(s, ...args);

const template = (app: string, image = "img:1", labels: Record<string, string> = {}) =>
  ({ metadata: { labels: { app, ...labels } }, spec: { containers: [{ name: "c", image }] } });
const create = async (name: string, spec: any) => {
  const r = await s.call("POST", D, { metadata: { name }, spec: { replicas: 3, selector: { matchLabels: { app: name } }, template: template(name), ...spec } });
  expect(r.status).toBe(201);
  return r.body;
};
const get = async (name: string) => (await s.call("GET", `${D}/${name}`)).body;
const patch = (name: string, body: any) => s.call("PATCH", `${D}/${name}`, body, { "content-type": "application/merge-patch+json" });
const setImage = (name: string, image: string) => patch(name, { spec: { template: { spec: { containers: [{ name: "c", image }] } } } });
const replicaSets = async (app: string) => ((await s.call("GET", `/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3D${app}`)).body.items as any[]);
const pods = async (app: string) => ((await s.call("GET", `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`)).body.items as any[]).filter((p) => !p.metadata.deletionTimestamp);
const isReady = (p: any) => (p.status?.conditions ?? []).some((c: any) => c.type === "Ready" && c.status === "True");
const condition = (d: any, type: string) => (d.status?.conditions ?? []).find((c: any) => c.type === type);
/** Complete as `kubectl rollout status` sees it. */
const complete = async (name: string) => {
  const d = await get(name);
  const st = d.status ?? {};
  return st.observedGeneration >= d.metadata.generation && st.updatedReplicas === d.spec.replicas && st.replicas === d.spec.replicas && st.availableReplicas === d.spec.replicas ? d : undefined;
};
const rolledOut = (name: string, ms = 20_000) => until(() => complete(name), `${name} to roll out`, ms);

test("a Deployment makes a ReplicaSet named by its template's hash, with revision annotations and every status field kubectl reads", async () => {
  const player = playNode(s, "default", "app=web");
  await create("web", {});
  const d = await rolledOut("web");
  const [rs] = await replicaSets("web");
  const hash = rs.metadata.labels["pod-template-hash"];
  expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
  expect(rs.metadata.name).toBe(`web-${hash}`);
  expect(rs.spec.selector.matchLabels).toEqual({ app: "web", "pod-template-hash": hash });
  expect(rs.metadata.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  expect(rs.metadata.annotations).toEqual({ "deployment.kubernetes.io/revision": "1", "deployment.kubernetes.io/desired-replicas": "3", "deployment.kubernetes.io/max-replicas": "4" });
  expect((await pods("web")).every((p) => p.metadata.labels["pod-template-hash"] === hash)).toBe(true);
  expect(d.metadata.annotations["deployment.kubernetes.io/revision"]).toBe("1");
  expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
  expect(condition(d, "Available")).toMatchObject({ status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." });
  await until(async () => (condition(await get("web"), "Progressing")?.reason === "NewReplicaSetAvailable" ? true : undefined), "NewReplicaSetAvailable");
  expect(condition(await get("web"), "Progressing")).toMatchObject({ status: "True", message: `ReplicaSet "${rs.metadata.name}" has successfully progressed.` });
  const r = await kubectl("rollout", "status", "deployment/web", "--timeout=30s");
  expect(r.code).toBe(0);
  expect(r.out).toContain(`deployment "web" successfully rolled out`);
  const events = ((await s.call("GET", "/apis/events.k8s.io/v1/namespaces/default/events")).body.items as any[]).filter((e) => e.regarding?.name === "web");
  expect(events.map((e) => [e.reason, e.note])).toContainEqual(["ScalingReplicaSet", `Scaled up replica set ${rs.metadata.name} to 3`]);
  await player.stop();
});

test("a rolling update keeps maxSurge and maxUnavailable at every observed step; rollout status waits for it; rollout undo brings the old template back", async () => {
  const player = playNode(s, "default", "app=roll", { delayMs: 150 });
  await create("roll", { replicas: 4, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: "25%" } } });
  await rolledOut("roll");
  const [first] = await replicaSets("roll");
  let steps = 0, mixed = false, sampling = true;
  const violations: string[] = [];
  const sampler = (async () => {
    while (sampling) {
      const [rss, ps] = await Promise.all([replicaSets("roll"), pods("roll")]);
      const desired = rss.reduce((n, rs) => n + rs.spec.replicas, 0);
      const ready = ps.filter(isReady).length;
      if (desired > 5) violations.push(`${desired} pods desired`);
      if (ready < 3) violations.push(`${ready} pods ready`);
      if (rss.filter((rs) => rs.spec.replicas > 0).length > 1) mixed = true;
      steps++;
      await Bun.sleep(10);
    }
  })();
  await setImage("roll", "img:2");
  const status = await kubectl("rollout", "status", "deployment/roll", "--timeout=60s");
  sampling = false;
  await sampler;
  expect(status.code).toBe(0);
  expect(status.out).toContain(`deployment "roll" successfully rolled out`);
  expect(violations).toEqual([]);
  expect(mixed).toBe(true);
  expect(steps).toBeGreaterThan(5);
  const d = await get("roll");
  expect(d.status).toMatchObject({ replicas: 4, updatedReplicas: 4, availableReplicas: 4 });
  expect(d.metadata.annotations["deployment.kubernetes.io/revision"]).toBe("2");
  expect((await pods("roll")).every((p) => p.spec.containers[0].image === "img:2")).toBe(true);

  const undo = await kubectl("rollout", "undo", "deployment/roll");
  expect(undo.code).toBe(0);
  expect((await get("roll")).spec.template.spec.containers[0].image).toBe("img:1");
  expect((await kubectl("rollout", "status", "deployment/roll", "--timeout=60s")).code).toBe(0);
  await until(async () => { const ps = await pods("roll"); return ps.length === 4 && ps.every((p) => p.spec.containers[0].image === "img:1") ? true : undefined; }, "the old pods back");
  const back = (await replicaSets("roll")).find((rs) => rs.metadata.name === first.metadata.name);
  expect(back.metadata.annotations).toMatchObject({ "deployment.kubernetes.io/revision": "3", "deployment.kubernetes.io/revision-history": "1" });
  expect((await get("roll")).metadata.annotations["deployment.kubernetes.io/revision"]).toBe("3");
  await player.stop();
});

test("a paused Deployment does not roll out its new template until resumed", async () => {
  const player = playNode(s, "default", "app=pause");
  await create("pause", { replicas: 2 });
  await rolledOut("pause");
  expect((await kubectl("rollout", "pause", "deployment/pause")).code).toBe(0);
  await setImage("pause", "img:2");
  await until(async () => (condition(await get("pause"), "Progressing")?.reason === "DeploymentPaused" ? true : undefined), "the DeploymentPaused condition");
  expect(condition(await get("pause"), "Progressing")).toMatchObject({ status: "Unknown", message: "Deployment is paused" });
  await Bun.sleep(700);
  expect((await replicaSets("pause")).length).toBe(1);
  expect((await kubectl("rollout", "resume", "deployment/pause")).code).toBe(0);
  expect((await kubectl("rollout", "status", "deployment/pause", "--timeout=60s")).code).toBe(0);
  expect((await pods("pause")).every((p) => p.spec.containers[0].image === "img:2")).toBe(true);
  expect((await replicaSets("pause")).length).toBe(2);
  await player.stop();
});

test("revisionHistoryLimit keeps that many old ReplicaSets, the newest", async () => {
  const player = playNode(s, "default", "app=hist");
  await create("hist", { replicas: 1, revisionHistoryLimit: 1 });
  await rolledOut("hist");
  for (const image of ["img:2", "img:3", "img:4"]) {
    await setImage("hist", image);
    await until(async () => { const d = await complete("hist"); return d && d.metadata.generation === d.status.observedGeneration && (await pods("hist")).every((p) => p.spec.containers[0].image === image) ? true : undefined; }, `the rollout to ${image}`);
  }
  const rss = await until(async () => { const r = await replicaSets("hist"); return r.length === 2 ? r : undefined; }, "2 ReplicaSets left");
  expect(rss.map((rs) => rs.metadata.annotations["deployment.kubernetes.io/revision"]).sort()).toEqual(["3", "4"]);
  await player.stop();
});

test("a rollout whose pods never become ready exceeds its progress deadline, and rollout status says so", async () => {
  await create("stuck", { replicas: 2, progressDeadlineSeconds: 2 });
  const d = await until(async () => { const x = await get("stuck"); return condition(x, "Progressing")?.reason === "ProgressDeadlineExceeded" ? x : undefined; }, "ProgressDeadlineExceeded", 15_000);
  const [rs] = await replicaSets("stuck");
  expect(condition(d, "Progressing")).toMatchObject({ status: "False", message: `ReplicaSet "${rs.metadata.name}" has timed out progressing.` });
  expect(condition(d, "Available")).toMatchObject({ status: "False", reason: "MinimumReplicasUnavailable", message: "Deployment does not have minimum availability." });
  expect(d.status).toMatchObject({ replicas: 2, updatedReplicas: 2, unavailableReplicas: 2 });
  const r = await kubectl("rollout", "status", "deployment/stuck", "--timeout=30s");
  expect(r.code).not.toBe(0);
  expect(r.err).toContain(`deployment "stuck" exceeded its progress deadline`);
});

test("Recreate removes every old pod before the first new one is made", async () => {
  const player = playNode(s, "default", "app=recreate", { delayMs: 100 });
  await create("recreate", { strategy: { type: "Recreate" } });
  await rolledOut("recreate");
  const oldHash = (await replicaSets("recreate"))[0].metadata.labels["pod-template-hash"];
  let sampling = true, overlap = 0, sawNew = false;
  const sampler = (async () => {
    while (sampling) {
      const ps = await pods("recreate");
      const old = ps.filter((p) => p.metadata.labels["pod-template-hash"] === oldHash).length;
      if (old > 0 && old < ps.length) overlap++;
      if (old < ps.length) sawNew = true;
      await Bun.sleep(10);
    }
  })();
  await setImage("recreate", "img:2");
  expect((await kubectl("rollout", "status", "deployment/recreate", "--timeout=60s")).code).toBe(0);
  sampling = false;
  await sampler;
  expect(sawNew).toBe(true);
  expect(overlap).toBe(0);
  expect((await pods("recreate")).every((p) => p.spec.containers[0].image === "img:2" && isReady(p))).toBe(true);
  await player.stop();
});

test("scaling mid-rollout spreads the new replicas over the ReplicaSets in proportion", async () => {
  const player = playNode(s, "default", "app=prop", { accept: (p) => p.metadata.labels.version !== "stuck" });
  await create("prop", { replicas: 10, template: template("prop", "img:1", { version: "v1" }), strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } });
  await rolledOut("prop");
  await patch("prop", { spec: { template: { metadata: { labels: { version: "stuck" } } } } });
  const sizes = async () => {
    const rss = await replicaSets("prop");
    const v = (ver: string) => rss.find((rs) => rs.spec.template.metadata.labels.version === ver);
    return [v("v1")?.spec.replicas, v("stuck")?.spec.replicas, v("v1")?.status?.availableReplicas];
  };
  await until(async () => { const [o, n, a] = await sizes(); return o === 8 && n === 5 && a === 8 ? true : undefined; }, "the rollout to stall at 8 old, 5 new");
  expect((await kubectl("scale", "deployment/prop", "--replicas=20")).code).toBe(0);
  await until(async () => { const [o, n] = await sizes(); return o === 14 && n === 9 ? true : undefined; }, "14 old and 9 new replicas");
  await Bun.sleep(500);
  expect((await sizes()).slice(0, 2)).toEqual([14, 9]);
  await player.stop();
});

test("a Deployment adopts an orphan ReplicaSet of its template instead of making another, and releases one whose labels stop matching", async () => {
  const player = playNode(s, "default", "app=orph");
  const rs = await s.call("POST", "/apis/apps/v1/namespaces/default/replicasets", { metadata: { name: "orph-old", labels: { app: "orph" } }, spec: { replicas: 2, selector: { matchLabels: { app: "orph" } }, template: template("orph") } });
  expect(rs.status).toBe(201);
  const d = await create("orph", { replicas: 2 });
  await rolledOut("orph");
  const rss = await replicaSets("orph");
  expect(rss.map((x) => x.metadata.name)).toEqual(["orph-old"]);
  expect(rss[0].metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "Deployment", name: "orph", uid: d.metadata.uid, controller: true })]);
  expect(rss[0].metadata.annotations["deployment.kubernetes.io/revision"]).toBe("1");
  await s.call("PATCH", "/apis/apps/v1/namespaces/default/replicasets/orph-old", { metadata: { labels: { app: "elsewhere" } } }, { "content-type": "application/merge-patch+json" });
  await until(async () => (((await s.call("GET", "/apis/apps/v1/namespaces/default/replicasets/orph-old")).body.metadata.ownerReferences ?? []).length === 0 ? true : undefined), "the ReplicaSet to be released");
  await until(async () => ((await replicaSets("orph")).length === 1 ? true : undefined), "a ReplicaSet made in its place");
  await player.stop();
});

test("with a real node agent, a Deployment of 3 runs 3 Ready processes", async () => {
  const agent = await startNodeAgent(s);
  try {
    await create("real", {
      template: { metadata: { labels: { app: "real" } }, spec: { nodeName: agent.name, terminationGracePeriodSeconds: 1, containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"] }] } },
    });
    await rolledOut("real", 60_000);
    const ps = await pods("real");
    expect(ps.length).toBe(3);
    expect(ps.every(isReady)).toBe(true);
    // each pod's sleep is a live process on the host
    for (const p of ps) await until(async () => (containerPids(agent.rootDir, p.metadata.uid, "c").some(alive) ? true : undefined), `the process of ${p.metadata.name}`);
  } finally {
    await agent.stop();
  }
});
