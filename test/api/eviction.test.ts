// Evicting pods, the API server's side of `kubectl drain` (upstream's EvictionREST): pods/NAME/eviction deletes
// a pod no budget covers, takes a disruption from the PodDisruptionBudget that covers it (disruptionsAllowed one
// less, the pod in disruptedPods), answers 429 with upstream's message and cause when the budget allows none,
// and honours the Eviction's DeleteOptions and dry runs.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "eviction";
const PODS = `/api/v1/namespaces/${NS}/pods`;
const PDBS = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
let s: TestServer;

beforeAll(async () => {
  s = await startServer();
  await createNamespace(s, NS);
}, 60_000);
afterAll(async () => { await s?.stop(); }, 30_000);

const eviction = (name: string, deleteOptions?: Record<string, unknown>, apiVersion = "policy/v1beta1") =>
  ({ apiVersion, kind: "Eviction", metadata: { name, namespace: NS }, ...(deleteOptions ? { deleteOptions } : {}) });
const evict = (name: string, body: unknown = eviction(name), query = "") => s.call("POST", `${PODS}/${name}/eviction${query}`, body);
const getPod = (name: string) => s.call("GET", `${PODS}/${name}`);

/** A pod Running (and Ready unless told) as its node reports it; bound to `node` when given. */
async function runningPod(name: string, labels: Record<string, string>, o: { ready?: boolean; node?: string } = {}): Promise<any> {
  const r = await s.call("POST", PODS, { metadata: { name, labels }, spec: { ...(o.node ? { nodeName: o.node } : {}), containers: [{ name: "c", image: "img" }] } });
  expectCode(r, 201, `create pod ${name}`);
  const ready = o.ready === false ? "False" : "True";
  const st = await s.call("PATCH", `${PODS}/${name}/status`, { status: { phase: "Running", conditions: [{ type: "Ready", status: ready }] } }, { "content-type": "application/merge-patch+json" });
  expectCode(st, 200, `status of pod ${name}`);
  return st.body;
}

/** A budget over `app` whose status says what the disruption controller would have written. */
async function budget(name: string, app: string, status: Record<string, unknown>, observed = true): Promise<any> {
  const r = await s.call("POST", PDBS, { metadata: { name }, spec: { minAvailable: 2, selector: { matchLabels: { app } } } });
  expectCode(r, 201, `create pdb ${name}`);
  const st = await s.call("PUT", `${PDBS}/${name}/status`, { ...r.body, status: { observedGeneration: observed ? r.body.metadata.generation : 0, expectedPods: 3, ...status } });
  expectCode(st, 200, `status of pdb ${name}`);
  return st.body;
}

test("discovery lists pods/eviction as upstream v1.21 serves it (policy/v1beta1 Eviction, create)", async () => {
  const r = await s.call("GET", "/api/v1");
  expect(r.body.resources.find((x: any) => x.name === "pods/eviction")).toEqual({ name: "pods/eviction", singularName: "", namespaced: true, group: "policy", version: "v1beta1", kind: "Eviction", verbs: ["create"] });
});

test("a pod no budget covers is deleted by its eviction", async () => {
  await runningPod("free", { app: "free" });
  const r = await evict("free");
  expectCode(r, 201, "evict");
  expect(r.body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Success" });
  expect((await getPod("free")).status).toBe(404);
  // the policy/v1 spelling kubectl 1.20 sends when policy/v1 is the group's preferred version
  await runningPod("free2", { app: "free" });
  expectCode(await evict("free2", eviction("free2", undefined, "policy/v1")), 201, "evict as policy/v1");
  expect((await getPod("free2")).status).toBe(404);
});

test("an eviction the budget allows takes a disruption; the next is refused with 429 and upstream's cause", async () => {
  for (const n of ["web-1", "web-2", "web-3"]) await runningPod(n, { app: "web" });
  await budget("web", "web", { currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, conditions: [{ type: "DisruptionAllowed", status: "True", reason: "SufficientPods", message: "", observedGeneration: 1, lastTransitionTime: "2021-01-01T00:00:00Z" }] });
  expectCode(await evict("web-1"), 201, "first eviction");
  expect((await getPod("web-1")).status).toBe(404);
  const pdb = (await s.call("GET", `${PDBS}/web`)).body;
  expect(pdb.status.disruptionsAllowed).toBe(0);
  expect(Object.keys(pdb.status.disruptedPods)).toEqual(["web-1"]);
  expect(Date.now() - Date.parse(pdb.status.disruptedPods["web-1"])).toBeLessThan(60_000);
  expect(pdb.status.conditions).toEqual([expect.objectContaining({ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods", observedGeneration: 1 })]);

  const refused = expectStatus(await evict("web-2"), 429, "TooManyRequests", "second eviction");
  expect(refused.message).toBe("Cannot evict pod as it would violate the pod's disruption budget.");
  expect(refused.details.causes).toEqual([{ reason: "DisruptionBudget", message: "The disruption budget web needs 2 healthy pods and has 3 currently" }]);
  expectCode(await getPod("web-2"), 200, "the refused pod stays");
});

test("a budget the controller has not yet observed refuses evictions", async () => {
  await runningPod("new-1", { app: "new" });
  await budget("new", "new", { currentHealthy: 1, desiredHealthy: 0, disruptionsAllowed: 1 }, false);
  const r = expectStatus(await evict("new-1"), 429, "TooManyRequests", "eviction");
  expect(r.details.causes).toEqual([{ reason: "DisruptionBudget", message: "The disruption budget new is still being processed by the server." }]);
});

test("a pod that is not ready goes without taking a disruption while the budget is met; a pending one too", async () => {
  await runningPod("ok-1", { app: "ok" });
  await runningPod("ok-2", { app: "ok" });
  await runningPod("sick", { app: "ok" }, { ready: false });
  await budget("ok", "ok", { currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 });
  expectCode(await evict("sick"), 201, "evict the unready pod");
  expect((await getPod("sick")).status).toBe(404);
  expect((await s.call("GET", `${PDBS}/ok`)).body.status.disruptedPods).toBeUndefined();
  expectStatus(await evict("ok-1"), 429, "TooManyRequests", "a ready pod");
  const pending = await s.call("POST", PODS, { metadata: { name: "pending", labels: { app: "ok" } }, spec: { containers: [{ name: "c", image: "img" }] } });
  expectCode(pending, 201, "create a pending pod");
  expectCode(await evict("pending"), 201, "evict the pending pod");
});

test("dry runs, in the query or in the Eviction's DeleteOptions, change nothing", async () => {
  for (const n of ["dry-1", "dry-2"]) await runningPod(n, { app: "dry" });
  const before = await budget("dry", "dry", { currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1 });
  expectCode(await evict("dry-1", eviction("dry-1"), "?dryRun=All"), 201, "dry run in the query");
  expectCode(await evict("dry-1", eviction("dry-1", { dryRun: ["All"] })), 201, "dry run in DeleteOptions");
  expectCode(await getPod("dry-1"), 200, "the pod stays");
  expect((await s.call("GET", `${PDBS}/dry`)).body.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  expectStatus(await evict("dry-1", eviction("dry-1", { dryRun: ["Bogus"] })), 400, "BadRequest", "an unknown dry run");
});

test("the Eviction's DeleteOptions are honoured: preconditions and the grace period", async () => {
  const pod = await runningPod("bound", { app: "bound" }, { node: "n1" });
  expectStatus(await evict("bound", eviction("bound", { preconditions: { uid: "not-its-uid" } })), 409, "Conflict", "a wrong uid");
  // a pod on a node is deleted gracefully by default: it stays, marked, for its node to stop
  expectCode(await evict("bound", eviction("bound", { preconditions: { uid: pod.metadata.uid } })), 201, "graceful eviction");
  const marked = (await getPod("bound")).body;
  expect(marked.metadata.deletionTimestamp).toBeString();
  expect(marked.metadata.deletionGracePeriodSeconds).toBe(30);
  expectCode(await evict("bound", eviction("bound", { gracePeriodSeconds: 0 })), 201, "eviction without grace");
  expect((await getPod("bound")).status).toBe(404);
});

test("bad evictions: a name that differs from the URL's, a missing pod, a pod under two budgets", async () => {
  await runningPod("two", { app: "two", tier: "x" });
  expectStatus(await evict("two", eviction("other")), 400, "BadRequest", "a different name");
  expectStatus(await evict("ghost"), 404, "NotFound", "a missing pod");
  await budget("two-a", "two", { disruptionsAllowed: 1 });
  const r = await s.call("POST", PDBS, { metadata: { name: "two-b" }, spec: { maxUnavailable: 1, selector: { matchLabels: { tier: "x" } } } });
  expectCode(r, 201, "second budget");
  const e = expectStatus(await evict("two"), 500, "InternalError", "two budgets");
  expect(e.message).toContain("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
  expectStatus(await s.call("GET", `${PODS}/two/eviction`), 405, "MethodNotAllowed", "a GET");
});

test("a budget's empty selector covers every pod of its namespace (policy/v1), a missing one none", async () => {
  await createNamespace(s, "eviction-all");
  const pods = "/api/v1/namespaces/eviction-all/pods", pdbs = "/apis/policy/v1/namespaces/eviction-all/poddisruptionbudgets";
  for (const name of ["bare", "other"]) {
    expectCode(await s.call("POST", pods, { metadata: { name }, spec: { containers: [{ name: "c", image: "img" }] } }), 201, `create ${name}`);
    expectCode(await s.call("PATCH", `${pods}/${name}/status`, { status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } }, { "content-type": "application/merge-patch+json" }), 200, `status of ${name}`);
  }
  const nil = await s.call("POST", pdbs, { metadata: { name: "nil" }, spec: { minAvailable: 1 } });
  expectCode(nil, 201, "a budget without a selector");
  expectCode(await s.call("POST", `${pods}/other/eviction`, { ...eviction("other"), metadata: { name: "other" } }), 201, "evict under a nil selector");
  const all = await s.call("POST", pdbs, { metadata: { name: "all" }, spec: { minAvailable: 1, selector: {} } });
  expectCode(all, 201, "a budget over everything");
  expectCode(await s.call("PUT", `${pdbs}/all/status`, { ...all.body, status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } }), 200, "its status");
  const r = expectStatus(await s.call("POST", `${pods}/bare/eviction`, { ...eviction("bare"), metadata: { name: "bare" } }), 429, "TooManyRequests", "evict a pod without labels");
  expect(r.details.causes[0].message).toBe("The disruption budget all needs 1 healthy pods and has 1 currently");
});
