// The namespace controller of `kite controller-manager` against an API server whose own namespace
// controller is off (test/helpers/apiserver-alone.ts): a Terminating namespace is emptied of every type
// (ConfigMaps, Secrets, a Deployment with its ReplicaSet and pods) and then removed; content held by a
// finalizer shows in upstream's conditions and keeps the namespace until it goes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { APISERVER_ALONE, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
const MERGE = { "Content-Type": "application/merge-patch+json" };
const nsPath = (ns: string) => `/api/v1/namespaces/${ns}`;

async function post(path: string, body: unknown) {
  const r = await s.call("POST", path, body);
  expect(r.status).toBe(201);
  return r.body;
}
const gone = (path: string, ms = 15_000) => until(async () => ((await s.call("GET", path)).status === 404 ? true : undefined), `${path} to be deleted`, ms);

beforeAll(async () => {
  s = await startServer([], undefined, APISERVER_ALONE);
  // Deleted before any controller runs: the server alone leaves it Terminating, its content in place.
  await post("/api/v1/namespaces", { metadata: { name: "early" } });
  await post(`${nsPath("early")}/configmaps`, { metadata: { name: "c" } });
  expect((await s.call("DELETE", nsPath("early"))).status).toBe(200);
  await Bun.sleep(500);
  const early = await s.call("GET", nsPath("early"));
  expect(early.body.status.phase).toBe("Terminating");
  expect((await s.call("GET", `${nsPath("early")}/configmaps/c`)).status).toBe(200);
  cm = await startControllerManager(s, "namespace,garbagecollector,deployment,replicaset");
}, 60_000);
afterAll(async () => {
  await cm?.stop();
  await s?.stop();
});

test("a namespace deleted while no controller ran is emptied and removed once one starts", async () => {
  await gone(nsPath("early"));
});

test("deleting a namespace removes its content of every kind, then the namespace", async () => {
  const ns = "apps";
  await post("/api/v1/namespaces", { metadata: { name: ns } });
  await post(`${nsPath(ns)}/configmaps`, { metadata: { name: "settings" }, data: { a: "1" } });
  await post(`${nsPath(ns)}/secrets`, { metadata: { name: "creds" }, stringData: { p: "x" } });
  const labels = { app: "web" };
  await post(`/apis/apps/v1/namespaces/${ns}/deployments`, { metadata: { name: "web" }, spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"] }] } } } });
  await until(async () => ((await s.call("GET", `${nsPath(ns)}/pods`)).body.items.length === 2 ? true : undefined), "the Deployment's pods", 15_000);
  expect((await s.call("GET", `/apis/apps/v1/namespaces/${ns}/replicasets`)).body.items).toHaveLength(1);

  const r = await s.call("DELETE", nsPath(ns));
  expect(r.status).toBe(200);
  expect(r.body.status.phase).toBe("Terminating");
  await gone(nsPath(ns));
  for (const p of [`${nsPath(ns)}/configmaps`, `${nsPath(ns)}/secrets`, `${nsPath(ns)}/pods`, `/apis/apps/v1/namespaces/${ns}/deployments`, `/apis/apps/v1/namespaces/${ns}/replicasets`]) {
    expect((await s.call("GET", p)).body.items).toEqual([]);
  }
  // the name is free again
  await post("/api/v1/namespaces", { metadata: { name: ns } });
});

test("content held by a finalizer is reported in the namespace's conditions and keeps it until released", async () => {
  const ns = "held";
  await post("/api/v1/namespaces", { metadata: { name: ns } });
  await post(`${nsPath(ns)}/configmaps`, { metadata: { name: "kept", finalizers: ["example.com/hold"] } });
  await post(`${nsPath(ns)}/secrets`, { metadata: { name: "s" } });
  expect((await s.call("DELETE", nsPath(ns))).status).toBe(200);
  const conditions = await until(async () => {
    const c: any[] = (await s.call("GET", nsPath(ns))).body.status?.conditions ?? [];
    return c.some((x) => x.type === "NamespaceFinalizersRemaining" && x.status === "True") ? c : undefined;
  }, "the namespace's conditions");
  const byType = Object.fromEntries(conditions.map((c) => [c.type, c]));
  expect(byType.NamespaceDeletionDiscoveryFailure).toMatchObject({ status: "False", reason: "ResourcesDiscovered", message: "All resources successfully discovered" });
  expect(byType.NamespaceDeletionContentFailure).toMatchObject({ status: "False", reason: "ContentDeleted" });
  expect(byType.NamespaceContentRemaining).toMatchObject({ status: "True", reason: "SomeResourcesRemain", message: "Some resources are remaining: configmaps. has 1 resource instances" });
  expect(byType.NamespaceFinalizersRemaining).toMatchObject({ status: "True", reason: "SomeFinalizersRemain", message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances" });
  expect((await s.call("GET", `${nsPath(ns)}/secrets/s`)).status).toBe(404);
  const held = await s.call("GET", nsPath(ns));
  expect(held.body.spec.finalizers).toEqual(["kubernetes"]);

  expect((await s.call("PATCH", `${nsPath(ns)}/configmaps/kept`, { metadata: { finalizers: null } }, MERGE)).status).toBe(200);
  // upstream looks again after half its 15 s estimate for finalizing content
  await gone(nsPath(ns), 30_000);
});
