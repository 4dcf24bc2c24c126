// The job controller against a real server and `kite controller-manager --controllers=job`: pods made
// with the job's controller reference and labels, parallelism and completions respected, backoffLimit
// and activeDeadlineSeconds failing the job, Indexed jobs' indexes, suspend and resume — with pods "run"
// by writing their phase — and a Job whose pods a real `kite node-agent` runs.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { listPods, setPodPhase } from "../helpers/playnode.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
const NS = "default";
const JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;

beforeAll(async () => {
  s = await startServer();
  cm = await startControllerManager(s, "job");
});
afterAll(async () => {
  await cm?.stop();
  await s?.stop();
});

const container = (command = ["sleep", "60"]) => ({ name: "c", image: "busybox", command });

async function createJob(name: string, spec: Record<string, unknown>, podSpec: Record<string, unknown> = {}) {
  const r = await s.call("POST", JOBS, { apiVersion: "batch/v1", kind: "Job", metadata: { name }, spec: { ...spec, template: { spec: { restartPolicy: "Never", containers: [container()], ...podSpec } } } });
  expect(r.status).toBe(201);
  return r.body;
}
const getJob = async (name: string) => (await s.call("GET", `${JOBS}/${name}`)).body;
const podsOf = async (job: string) => listPods(s, NS, `job-name=${job}`);
const active = (pods: any[]) => pods.filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
const condition = (job: any, type: string) => (job.status?.conditions ?? []).find((c: any) => c.type === type);
const waitCondition = (name: string, type: string, ms = 15_000) => until(async () => { const j = await getJob(name); return condition(j, type)?.status === "True" ? j : undefined; }, `job ${name} ${type}`, ms);
const events = async (name: string) => ((await s.call("GET", `/apis/events.k8s.io/v1/namespaces/${NS}/events`)).body.items as any[]).filter((e) => e.regarding?.name === name);
const activeCount = (name: string, n: number) => until(async () => { const p = active(await podsOf(name)); return p.length === n ? p : undefined; }, `${n} active pods of ${name}`);

test("a Job of 5 completions with parallelism 2 keeps at most 2 pods active, makes them its own and completes", async () => {
  const job = await createJob("five", { completions: 5, parallelism: 2 });
  let most = 0;
  for (let done = 0; done < 5;) {
    const pods = await until(async () => { const p = active(await podsOf("five")); most = Math.max(most, p.length); return p.length ? p : undefined; }, "an active pod");
    await Bun.sleep(100);
    most = Math.max(most, active(await podsOf("five")).length);
    await setPodPhase(s, pods[0], "Succeeded");
    done++;
    await until(async () => ((await getJob("five")).status?.succeeded === done ? true : undefined), `${done} succeeded`);
  }
  expect(most).toBe(2);
  const done = await waitCondition("five", "Complete");
  expect(done.status).toMatchObject({ succeeded: 5 });
  expect(done.status.active).toBeUndefined();
  expect(Date.parse(done.status.completionTime)).toBeGreaterThanOrEqual(Date.parse(done.status.startTime));
  const pods = await podsOf("five");
  expect(pods).toHaveLength(5);
  for (const p of pods) {
    expect(p.metadata.name).toStartWith("five-");
    expect(p.metadata.labels).toMatchObject({ "controller-uid": job.metadata.uid, "job-name": "five" });
    expect(p.metadata.ownerReferences).toEqual([{ apiVersion: "batch/v1", kind: "Job", name: "five", uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  }
  const evs = await until(async () => { const e = await events("five"); return e.some((x) => x.reason === "Completed") ? e : undefined; }, "the Completed event");
  expect(evs.filter((e) => e.reason === "SuccessfulCreate").map((e) => e.note).sort()).toEqual(pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
  expect(evs.find((e) => e.reason === "Completed")!.note).toBe("Job completed");
});

test("a failed pod is replaced and counted; past backoffLimit the job fails with BackoffLimitExceeded", async () => {
  await createJob("retry", { backoffLimit: 2 });
  const [first] = await activeCount("retry", 1);
  await setPodPhase(s, first, "Failed");
  const [second] = await activeCount("retry", 1);
  expect(second.metadata.name).not.toBe(first.metadata.name);
  await until(async () => ((await getJob("retry")).status?.failed === 1 ? true : undefined), "failed 1");

  await createJob("fragile", { backoffLimit: 0 });
  const [only] = await activeCount("fragile", 1);
  await setPodPhase(s, only, "Failed");
  const failed = await waitCondition("fragile", "Failed");
  expect(condition(failed, "Failed")).toMatchObject({ reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" });
  expect(failed.status).toMatchObject({ failed: 1 });
  expect(failed.status.completionTime).toBeUndefined();
  await Bun.sleep(300);
  expect(await podsOf("fragile")).toHaveLength(1); // no replacement once failed
});

test("restartPolicy OnFailure: container restarts reaching backoffLimit fail the job", async () => {
  await createJob("restarts", { backoffLimit: 2 }, { restartPolicy: "OnFailure" });
  const [p] = await activeCount("restarts", 1);
  const containerStatuses = [{ name: "c", image: "busybox", imageID: "", ready: false, restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff" } } }];
  const r = await s.call("PATCH", `/api/v1/namespaces/${NS}/pods/${p.metadata.name}/status`, { status: { phase: "Running", containerStatuses } }, { "Content-Type": "application/merge-patch+json" });
  expect(r.status).toBe(200);
  const failed = await waitCondition("restarts", "Failed");
  expect(condition(failed, "Failed").reason).toBe("BackoffLimitExceeded");
  await activeCount("restarts", 0);
});

test("activeDeadlineSeconds fails the job with DeadlineExceeded and deletes its active pods", async () => {
  await createJob("slow", { activeDeadlineSeconds: 1, parallelism: 2, completions: 4 });
  await activeCount("slow", 2);
  const failed = await waitCondition("slow", "Failed");
  expect(condition(failed, "Failed")).toMatchObject({ reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" });
  expect(failed.status).toMatchObject({ failed: 2 });
  await activeCount("slow", 0);
  const evs = await until(async () => { const e = await events("slow"); return e.filter((x) => x.reason === "SuccessfulDelete").length === 2 ? e : undefined; }, "two SuccessfulDelete events");
  expect(evs.find((e) => e.reason === "DeadlineExceeded")?.type).toBe("Warning");
});

test("lowering parallelism deletes the surplus pods", async () => {
  await createJob("wide", { parallelism: 3, completions: 10 });
  await activeCount("wide", 3);
  const r = await s.call("PATCH", `${JOBS}/wide`, { spec: { parallelism: 1 } }, { "Content-Type": "application/merge-patch+json" });
  expect(r.status).toBe(200);
  await activeCount("wide", 1);
  await until(async () => ((await getJob("wide")).status?.active === 1 ? true : undefined), "status.active 1");
});

test("an Indexed job runs one pod per index with its annotation, hostname and JOB_COMPLETION_INDEX, and lists completed indexes", async () => {
  await createJob("idx", { completions: 3, parallelism: 3, completionMode: "Indexed" });
  const pods = await activeCount("idx", 3);
  const byIndex = new Map(pods.map((p) => [p.metadata.annotations["batch.kubernetes.io/job-completion-index"], p]));
  expect([...byIndex.keys()].sort()).toEqual(["0", "1", "2"]);
  for (const [ix, p] of byIndex) {
    expect(p.spec.hostname).toBe(`idx-${ix}`);
    expect(p.spec.containers[0].env).toContainEqual({ name: "JOB_COMPLETION_INDEX", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } });
  }
  await setPodPhase(s, byIndex.get("1")!, "Succeeded");
  await until(async () => ((await getJob("idx")).status?.completedIndexes === "1" ? true : undefined), `completedIndexes "1"`);
  // a failed index gets a new pod for the same index
  await setPodPhase(s, byIndex.get("2")!, "Failed");
  const again = await until(async () => active(await podsOf("idx")).find((p) => p.metadata.annotations["batch.kubernetes.io/job-completion-index"] === "2" && p.metadata.name !== byIndex.get("2")!.metadata.name), "a new pod for index 2");
  await setPodPhase(s, byIndex.get("0")!, "Succeeded");
  await setPodPhase(s, again, "Succeeded");
  const done = await waitCondition("idx", "Complete");
  expect(done.status).toMatchObject({ succeeded: 3, failed: 1, completedIndexes: "0-2" });
});

test("a suspended job runs no pods until resumed; suspending again deletes them", async () => {
  await createJob("paused", { suspend: true, parallelism: 2, completions: 2 });
  const suspended = await waitCondition("paused", "Suspended");
  expect(condition(suspended, "Suspended")).toMatchObject({ reason: "JobSuspended", message: "Job suspended" });
  expect(suspended.status.startTime).toBeUndefined();
  expect(await podsOf("paused")).toHaveLength(0);
  const patch = (suspend: boolean) => s.call("PATCH", `${JOBS}/paused`, { spec: { suspend } }, { "Content-Type": "application/merge-patch+json" });
  expect((await patch(false)).status).toBe(200);
  await activeCount("paused", 2);
  const resumed = await until(async () => { const j = await getJob("paused"); return condition(j, "Suspended")?.status === "False" ? j : undefined; }, "resumed");
  expect(condition(resumed, "Suspended")).toMatchObject({ reason: "JobResumed", message: "Job resumed" });
  expect(resumed.status.startTime).toBeDefined();
  expect((await patch(true)).status).toBe(200);
  await activeCount("paused", 0);
  await waitCondition("paused", "Suspended");
});

test("with a real node agent, a Job of 5 completions and parallelism 2 never has more than 2 running and completes", async () => {
  const agent: TestNodeAgent = await startNodeAgent(s);
  try {
    await createJob("real", { completions: 5, parallelism: 2 }, { nodeName: agent.name, terminationGracePeriodSeconds: 1, containers: [container(["sh", "-c", "sleep 0.2; exit 0"])] });
    let most = 0;
    const done = await until(async () => {
      most = Math.max(most, active(await podsOf("real")).length);
      const j = await getJob("real");
      return condition(j, "Complete")?.status === "True" ? j : undefined;
    }, "the job to complete", 60_000);
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBeGreaterThan(0);
    expect(done.status.succeeded).toBe(5);
    const pods = await podsOf("real");
    expect(pods.filter((p) => p.status.phase === "Succeeded")).toHaveLength(5);
  } finally {
    await agent.stop();
  }
}, 90_000);
