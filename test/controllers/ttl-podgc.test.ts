// ttl-after-finished and podgc against a real server and `kite controller-manager
// --controllers=ttl-after-finished,podgc --terminated-pod-gc-threshold=1`: finished Jobs go (with their
// pods) once their TTL has run out, and only the newest finished pod is kept. (The node quarantine of
// orphaned pods is in test/unit/ctrl-podgc.test.ts, with a fake clock.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { listPods, setPodPhase } from "../helpers/playnode.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
const NS = "default";
const JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const MERGE = { "Content-Type": "application/merge-patch+json" };
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
const podSpec = { restartPolicy: "Never", containers: [{ name: "c", image: "busybox", command: ["true"] }] };

async function pod(name: string, labels: Record<string, string>, ownerReferences?: unknown[]) {
  const r = await s.call("POST", PODS, { apiVersion: "v1", kind: "Pod", metadata: { name, labels, ownerReferences }, spec: podSpec });
  expect(r.status).toBe(201);
  return r.body;
}

beforeAll(async () => {
  s = await startServer();
  // finished pods before the manager starts: its first collection comes at once
  for (const [i, phase] of (["Succeeded", "Failed", "Succeeded", undefined] as const).entries()) {
    const p = await pod(`done-${i}`, { gc: "yes" });
    // created within a second of each other: the oldest are the first by name
    if (phase) await setPodPhase(s, p, phase);
  }
  cm = await startControllerManager(s, "ttl-after-finished,podgc", ["--terminated-pod-gc-threshold=1"]);
});
afterAll(async () => {
  await cm?.stop();
  await s?.stop();
});

test("a bad --terminated-pod-gc-threshold exits 2 with one line", () => {
  const r = Bun.spawnSync([...KITE, "controller-manager", `--kubeconfig=${s.kubeconfig}`, "--terminated-pod-gc-threshold=many"]);
  expect(r.exitCode).toBe(2);
  expect(r.stderr.toString().trim()).toStartWith(`Error: invalid argument "many" for "--terminated-pod-gc-threshold" flag`);
});

test("podgc deletes the oldest finished pods beyond the threshold and leaves unfinished ones", async () => {
  const left = await until(async () => { const p = await listPods(s, NS, "gc=yes"); return p.length === 2 ? p : undefined; }, "two pods left");
  expect(left.map((p) => p.metadata.name).sort()).toEqual(["done-2", "done-3"]);
});

/** A Job (no job controller runs here) finished as `type` says, at `at`, with a pod it owns. */
async function finishedJob(name: string, ttl: number | undefined, type: "Complete" | "Failed", at = Date.now()) {
  const r = await s.call("POST", JOBS, { apiVersion: "batch/v1", kind: "Job", metadata: { name }, spec: { ttlSecondsAfterFinished: ttl, template: { spec: podSpec } } });
  expect(r.status).toBe(201);
  const job = r.body;
  await pod(`${name}-pod`, { "job-name": name }, [{ apiVersion: "batch/v1", kind: "Job", name, uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  const status = { startTime: rfc3339(at - 1000), conditions: [{ type, status: "True", lastTransitionTime: rfc3339(at) }] };
  expect((await s.call("PATCH", `${JOBS}/${name}/status`, { status }, MERGE)).status).toBe(200);
  return job;
}
const exists = async (path: string) => (await s.call("GET", path)).status === 200;

test("finished Jobs are deleted with their pods once ttlSecondsAfterFinished has passed since they finished", async () => {
  const start = Date.now();
  await finishedJob("ttl-now", 0, "Failed");
  await finishedJob("ttl-soon", 2, "Complete");
  await finishedJob("ttl-later", 60, "Complete");
  await finishedJob("no-ttl", undefined, "Complete");
  await until(async () => ((await exists(`${JOBS}/ttl-now`)) ? undefined : true), "ttl-now deleted");
  expect(await exists(`${JOBS}/ttl-soon`)).toBe(true);
  await until(async () => ((await exists(`${JOBS}/ttl-soon`)) ? undefined : true), "ttl-soon deleted");
  expect(Date.now() - start).toBeGreaterThanOrEqual(1000);
  await until(async () => ((await exists(`${PODS}/ttl-soon-pod`)) || (await exists(`${PODS}/ttl-now-pod`)) ? undefined : true), "their pods deleted");
  expect(await exists(`${JOBS}/ttl-later`)).toBe(true);
  expect(await exists(`${JOBS}/no-ttl`)).toBe(true);
});
