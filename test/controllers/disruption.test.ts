// The disruption controller (with the replicaset controller) against a real server and `kite
// controller-manager`, pods made Ready by a test that plays the node: PodDisruptionBudget status (expected
// pods from minAvailable or the controllers' scale, healthy pods, disruptions allowed, the DisruptionAllowed
// condition), evictions recorded in disruptedPods and forgotten, the fail-safe for pods without a controller,
// and kubectl 1.20's drain of a node, which evicts what the budget allows and retries until replacements
// on another node are Ready.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { KUBECTL_1_20, startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { markReady, playNode } from "../helpers/playnode.ts";
import { createNode, startScheduler, type TestScheduler } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const NS = "default";
const RS = `/apis/apps/v1/namespaces/${NS}/replicasets`;
const PDBS = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
const PODS = `/api/v1/namespaces/${NS}/pods`;

let s: TestServer, cm: TestComponent, sched: TestScheduler;
beforeAll(async () => {
  s = await startServer();
  await createNode(s, "node-a");
  [cm, sched] = await Promise.all([
    startControllerManager(s, "replicaset,disruption"),
    startScheduler(s),
  ]);
}, 60_000);
afterAll(async () => { await cm?.stop(); await sched?.stop(); await s?.stop(); });

const podsOf = async (app: string) => (await s.call("GET", `${PODS}?labelSelector=app%3D${app}`)).body.items as any[];
const pdb = async (name: string) => (await s.call("GET", `${PDBS}/${name}`)).body;
const events = async (name: string) => ((await s.call("GET", `/apis/events.k8s.io/v1/namespaces/${NS}/events`)).body.items as any[]).filter((e) => e.regarding?.name === name);
const newRS = async (name: string, replicas: number) => {
  const r = await s.call("POST", RS, { metadata: { name }, spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "c", image: "img" }] } } } });
  expect(r.status).toBe(201);
};
const newPDB = async (name: string, spec: Record<string, unknown>) => {
  const r = await s.call("POST", PDBS, { metadata: { name }, spec: { selector: { matchLabels: { app: name } }, ...spec } });
  expect(r.status).toBe(201);
};
/** The budget's status once `want` holds of it. */
const statusOnce = (name: string, want: (st: any) => boolean, what: string, ms = 15_000) =>
  until(async () => { const st = (await pdb(name)).status; return st && want(st) ? st : undefined; }, what, ms);

test("a budget over a ReplicaSet's ready pods: expected, desired and current healthy, disruptions allowed, the condition", async () => {
  const node = playNode(s, NS, "app=web");
  try {
    await newRS("web", 3);
    await newPDB("web", { minAvailable: 2 });
    const st = await statusOnce("web", (x) => x.currentHealthy === 3, "3 healthy");
    expect(st).toMatchObject({ observedGeneration: 1, expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 });
    expect(st.conditions).toEqual([{ type: "DisruptionAllowed", status: "True", reason: "SufficientPods", message: "", observedGeneration: 1, lastTransitionTime: expect.any(String) }]);
    // a new spec is observed: maxUnavailable of a percentage counts the ReplicaSet's scale
    const cur = await pdb("web");
    expect((await s.call("PUT", `${PDBS}/web`, { ...cur, spec: { ...cur.spec, minAvailable: undefined, maxUnavailable: "50%" } })).status).toBe(200);
    const next = await statusOnce("web", (x) => x.observedGeneration === 2, "generation 2 observed");
    expect(next).toMatchObject({ expectedPods: 3, desiredHealthy: 1, currentHealthy: 3, disruptionsAllowed: 2 });
  } finally { await node.stop(); }
});

test("an eviction is recorded in disruptedPods and forgotten once the pod is gone; a budget with no pods allows nothing", async () => {
  const node = playNode(s, NS, "app=ev");
  try {
    await newRS("ev", 2);
    await newPDB("ev", { minAvailable: 1 });
    await statusOnce("ev", (x) => x.disruptionsAllowed === 1, "1 disruption allowed");
    const [victim] = await podsOf("ev");
    const r = await s.call("POST", `${PODS}/${victim.metadata.name}/eviction`, { apiVersion: "policy/v1beta1", kind: "Eviction", metadata: { name: victim.metadata.name }, deleteOptions: { gracePeriodSeconds: 0 } });
    expect(r.status).toBe(201);
    // the replacement becomes Ready, the evicted pod is gone: the record is dropped and a disruption allowed again
    const st = await statusOnce("ev", (x) => x.disruptionsAllowed === 1 && !x.disruptedPods, "the eviction forgotten");
    expect(st).toMatchObject({ currentHealthy: 2, expectedPods: 2 });
  } finally { await node.stop(); }

  await newPDB("empty", { minAvailable: 1 });
  const st = await statusOnce("empty", (x) => x.observedGeneration === 1, "the empty budget observed");
  expect(st).toMatchObject({ expectedPods: 0, currentHealthy: 0, desiredHealthy: 1, disruptionsAllowed: 0 });
  expect(st.conditions).toEqual([expect.objectContaining({ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods" })]);
  await until(async () => ((await events("empty")).some((e) => e.reason === "NoPods" && e.note === "No matching pods found") || undefined), "the NoPods event");
});

test("an eviction never carried out counts the pod again after two minutes, with a NotDeleted event", async () => {
  const r = await s.call("POST", PODS, { metadata: { name: "stuck", labels: { app: "stuck" } }, spec: { containers: [{ name: "c", image: "img" }] } });
  expect(r.status).toBe(201);
  await markReady(s, r.body);
  await newPDB("stuck", { minAvailable: 0 });
  await statusOnce("stuck", (x) => x.currentHealthy === 1, "1 healthy");
  const cur = await pdb("stuck");
  const long = new Date(Date.now() - 3 * 60_000).toISOString().replace(/\.\d+Z$/, "Z");
  const recent = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  // the recent record hides the pod; the overdue one is dropped
  expect((await s.call("PUT", `${PDBS}/stuck/status`, { ...cur, status: { ...cur.status, disruptedPods: { stuck: recent } } })).status).toBe(200);
  await statusOnce("stuck", (x) => x.currentHealthy === 0 && x.disruptedPods?.stuck === recent, "the recent eviction awaited");
  const again = await pdb("stuck");
  expect((await s.call("PUT", `${PDBS}/stuck/status`, { ...again, status: { ...again.status, disruptedPods: { stuck: long } } })).status).toBe(200);
  await statusOnce("stuck", (x) => x.currentHealthy === 1 && !x.disruptedPods, "the overdue eviction dropped");
  const e = await until(async () => (await events("stuck")).find((x) => x.reason === "NotDeleted"), "the NotDeleted event");
  expect(e.note).toBe("Pod was expected by PDB default/stuck to be deleted but it wasn't");
});

test("maxUnavailable over pods without a controller fails safe: no disruptions, SyncFailed, and an event", async () => {
  const r = await s.call("POST", PODS, { metadata: { name: "lone", labels: { app: "lone" } }, spec: { containers: [{ name: "c", image: "img" }] } });
  expect(r.status).toBe(201);
  await markReady(s, r.body);
  await newPDB("lone", { maxUnavailable: 1 });
  const st = await statusOnce("lone", (x) => (x.conditions ?? []).length > 0, "a condition");
  expect(st.disruptionsAllowed).toBe(0);
  expect(st.conditions).toEqual([expect.objectContaining({ type: "DisruptionAllowed", status: "False", reason: "SyncFailed", message: 'found no controller ref for pod "lone"' })]);
  const e = await until(async () => (await events("lone")).find((x) => x.reason === "CalculateExpectedPodCountFailed"), "the event");
  expect(e.note).toBe('Failed to calculate the number of expected pods: found no controller ref for pod "lone"');
});

test("kubectl drain evicts what the budget allows and retries until the replacements on another node are Ready", async () => {
  const node = playNode(s, NS, "app=drain");
  try {
    await newRS("drain", 3);
    const first = await until(async () => { const p = await podsOf("drain"); return p.length === 3 && p.every((x) => x.spec.nodeName === "node-a") ? p : undefined; }, "3 pods on node-a");
    await newPDB("drain", { minAvailable: 2 });
    await statusOnce("drain", (x) => x.disruptionsAllowed === 1, "1 disruption allowed");
    await createNode(s, "node-b");
    // the pods never got more than one disruption at a time: at most one of the three was unhealthy
    let minHealthy = 3;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const healthy = (await podsOf("drain")).filter((p) => !p.metadata.deletionTimestamp && (p.status?.conditions ?? []).some((c: any) => c.type === "Ready" && c.status === "True")).length;
        minHealthy = Math.min(minHealthy, healthy);
        await Bun.sleep(50);
      }
    })();
    const p = Bun.spawn([KUBECTL_1_20, `--kubeconfig=${s.kubeconfig}`, "drain", "node-a", "--pod-selector=app=drain", "--grace-period=0", "--timeout=90s"], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    watching = false;
    await watch;
    expect({ code, err }).toEqual({ code: 0, err: expect.any(String) });
    expect(out).toContain("node/node-a cordoned");
    expect(out).toContain("node/node-a evicted");
    for (const x of first) expect(out).toContain(`pod/${x.metadata.name} evicted`);
    // a refused eviction was retried, in kubectl's words around upstream's message
    expect(err).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
    expect(minHealthy).toBeGreaterThanOrEqual(2);
    // the last eviction's replacement is created as drain ends, and scheduled a moment later
    await until(async () => {
      const now = (await podsOf("drain")).filter((x) => !x.metadata.deletionTimestamp).map((x) => x.spec.nodeName);
      return now.length === 3 && now.every((n) => n === "node-b") ? now : undefined;
    }, "the three replacements on node-b");
    expect((await s.call("GET", "/api/v1/nodes/node-a")).body.spec.unschedulable).toBe(true);
  } finally { await node.stop(); }
}, 120_000);
