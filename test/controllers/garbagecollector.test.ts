// The garbage collector of `kite controller-manager` against an API server whose own collector is off
// (test/helpers/apiserver-alone.ts): Background, Foreground (dependents first) and Orphan deletion across
// types, a dependent with a second living owner, and a Deployment's ReplicaSet and pods.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { APISERVER_ALONE, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
const NS = "default";
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
const MERGE = { "Content-Type": "application/merge-patch+json" };

const exists = async (path: string) => (await s.call("GET", path)).status === 200;
const gone = (path: string) => until(async () => ((await exists(path)) ? undefined : true), `${path} to be deleted`, 15_000);

async function create(collection: string, name: string, extra: Record<string, unknown> = {}) {
  const r = await s.call("POST", collection, { metadata: { name, ...extra } });
  expect(r.status).toBe(201);
  return r.body;
}
const refTo = (o: any, kind = "ConfigMap", block = false) => ({ apiVersion: "v1", kind, name: o.metadata.name, uid: o.metadata.uid, ...(block ? { blockOwnerDeletion: true } : {}) });

/** An owner ConfigMap with a dependent ConfigMap and a dependent Secret. */
async function family(tag: string, block = false) {
  const owner = await create(CMS, `${tag}-owner`);
  await create(CMS, `${tag}-cm`, { ownerReferences: [refTo(owner, "ConfigMap", block)] });
  await create(SECRETS, `${tag}-secret`, { ownerReferences: [refTo(owner, "ConfigMap", block)] });
  return owner;
}

beforeAll(async () => {
  s = await startServer([], undefined, APISERVER_ALONE);
  // Deleted before any collector runs: the server alone leaves the dependent.
  await family("early");
  expect((await s.call("DELETE", `${CMS}/early-owner`, { propagationPolicy: "Background" })).status).toBe(200);
  await Bun.sleep(500);
  expect(await exists(`${CMS}/early-cm`)).toBe(true);
  cm = await startControllerManager(s, "garbagecollector,deployment,replicaset");
}, 60_000);
afterAll(async () => {
  await cm?.stop();
  await s?.stop();
});

test("dependents whose owner went while no collector ran are collected when it starts", async () => {
  await gone(`${CMS}/early-cm`);
  await gone(`${SECRETS}/early-secret`);
});

test("Background: the owner goes at once and its dependents of every type follow", async () => {
  await family("bg");
  expect((await s.call("DELETE", `${CMS}/bg-owner`, { propagationPolicy: "Background" })).status).toBe(200);
  expect(await exists(`${CMS}/bg-owner`)).toBe(false);
  await gone(`${CMS}/bg-cm`);
  await gone(`${SECRETS}/bg-secret`);
});

test("Foreground: the owner stays, marked, until every blocking dependent is gone", async () => {
  const owner = await family("fg", true);
  // a dependent the test holds with a finalizer: the owner must wait for it
  await create(CMS, "fg-held", { ownerReferences: [refTo(owner, "ConfigMap", true)], finalizers: ["example.com/hold"] });
  const r = await s.call("DELETE", `${CMS}/fg-owner`, { propagationPolicy: "Foreground" });
  expect(r.status).toBe(200);
  expect(r.body.metadata.finalizers).toContain("foregroundDeletion");
  await gone(`${CMS}/fg-cm`);
  await gone(`${SECRETS}/fg-secret`);
  await until(async () => ((await s.call("GET", `${CMS}/fg-held`)).body.metadata?.deletionTimestamp ? true : undefined), "the held dependent to be deleted");
  await Bun.sleep(300);
  const waiting = await s.call("GET", `${CMS}/fg-owner`);
  expect(waiting.status).toBe(200);
  expect(waiting.body.metadata.finalizers).toEqual(["foregroundDeletion"]);
  expect((await s.call("PATCH", `${CMS}/fg-held`, { metadata: { finalizers: null } }, MERGE)).status).toBe(200);
  await gone(`${CMS}/fg-owner`);
});

test("Orphan: dependents stay without the reference, then the owner goes", async () => {
  const owner = await family("or");
  const other = await create(CMS, "or-other");
  await create(CMS, "or-two", { ownerReferences: [refTo(owner), refTo(other)] });
  expect((await s.call("DELETE", `${CMS}/or-owner`, { propagationPolicy: "Orphan" })).status).toBe(200);
  await gone(`${CMS}/or-owner`);
  for (const p of [`${CMS}/or-cm`, `${SECRETS}/or-secret`]) {
    const dep = await s.call("GET", p);
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toBeUndefined();
  }
  const two = await s.call("GET", `${CMS}/or-two`);
  expect(two.body.metadata.ownerReferences.map((r: any) => r.name)).toEqual(["or-other"]);
});

test("a dependent with another living owner only loses the reference to the deleted one", async () => {
  const a = await create(CMS, "two-a"), b = await create(CMS, "two-b");
  await create(SECRETS, "two-dep", { ownerReferences: [refTo(a), refTo(b)] });
  expect((await s.call("DELETE", `${CMS}/two-a`)).status).toBe(200);
  const refs = await until(async () => {
    const r = (await s.call("GET", `${SECRETS}/two-dep`)).body.metadata?.ownerReferences ?? [];
    return r.length === 1 ? r : undefined;
  }, "the reference to the deleted owner to go");
  expect(refs[0].name).toBe("two-b");
});

test("deleting a Deployment takes its ReplicaSet and pods with it", async () => {
  const labels = { app: "gc-web" };
  const dep = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "gc-web" }, spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"] }] } } } };
  expect((await s.call("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, dep)).status).toBe(201);
  const pods = () => s.call("GET", `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dgc-web`).then((r) => r.body.items as any[]);
  const rss = () => s.call("GET", `/apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=app%3Dgc-web`).then((r) => r.body.items as any[]);
  await until(async () => ((await pods()).length === 2 ? true : undefined), "two pods", 15_000);
  expect((await rss()).length).toBe(1);
  expect((await s.call("DELETE", `/apis/apps/v1/namespaces/${NS}/deployments/gc-web`, { propagationPolicy: "Background" })).status).toBe(200);
  await until(async () => ((await rss()).length === 0 && (await pods()).length === 0 ? true : undefined), "the ReplicaSet and pods to go", 15_000);
});

test("Foreground through two levels: pods, then the ReplicaSet, then the Deployment", async () => {
  const labels = { app: "gc-fg" };
  const dep = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "gc-fg" }, spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"] }] } } } };
  const DEPLOY = `/apis/apps/v1/namespaces/${NS}/deployments/gc-fg`;
  expect((await s.call("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, dep)).status).toBe(201);
  const pods = () => s.call("GET", `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dgc-fg`).then((r) => r.body.items as any[]);
  const rss = () => s.call("GET", `/apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=app%3Dgc-fg`).then((r) => r.body.items as any[]);
  await until(async () => ((await pods()).length === 2 ? true : undefined), "two pods", 15_000);
  const r = await s.call("DELETE", DEPLOY, { propagationPolicy: "Foreground" });
  expect(r.body.metadata.finalizers).toContain("foregroundDeletion");
  await gone(DEPLOY);
  // the Deployment could only go once its ReplicaSet had, and that once its pods had
  expect(await rss()).toEqual([]);
  expect(await pods()).toEqual([]);
});
