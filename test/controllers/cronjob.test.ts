// The cronjob controller against a real server and `kite controller-manager --controllers=cronjob`: a
// `* * * * *` CronJob behind on its schedule starts the job of the latest minute at once (named after it),
// lists it in status.active until it finishes, replaces or keeps running jobs as concurrencyPolicy says,
// and keeps only the newest finished jobs that the history limits allow. (Which times fire when is in
// test/unit/ctrl-cron.test.ts, with a fake clock.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
const NS = "default";
const CJS = `/apis/batch/v1/namespaces/${NS}/cronjobs`;
const JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;
const MERGE = { "Content-Type": "application/merge-patch+json" };

beforeAll(async () => {
  s = await startServer();
  cm = await startControllerManager(s, "cronjob");
});
afterAll(async () => {
  await cm?.stop();
  await s?.stop();
});

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
const jobTemplate = { metadata: { labels: { app: "tick" } }, spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox", command: ["true"] }] } } } };

/** A suspended CronJob, then its status as given, then (unless `suspend`) resumed: it acts on that status. */
async function cronJob(name: string, spec: Record<string, unknown>, status: (cj: any) => Record<string, unknown> = () => ({}), suspend = false) {
  const r = await s.call("POST", CJS, { apiVersion: "batch/v1", kind: "CronJob", metadata: { name }, spec: { schedule: "* * * * *", jobTemplate, ...spec, suspend: true } });
  expect(r.status).toBe(201);
  const st = await s.call("PATCH", `${CJS}/${name}/status`, { status: status(r.body) }, MERGE);
  expect(st.status).toBe(200);
  if (!suspend) expect((await s.call("PATCH", `${CJS}/${name}`, { spec: { suspend: false } }, MERGE)).status).toBe(200);
  return r.body;
}
const getCJ = async (name: string) => (await s.call("GET", `${CJS}/${name}`)).body;
const jobsOf = async (cj: any) => ((await s.call("GET", JOBS)).body.items as any[]).filter((j) => j.metadata.ownerReferences?.[0]?.uid === cj.metadata.uid);
const events = async (name: string) => ((await s.call("GET", `/apis/events.k8s.io/v1/namespaces/${NS}/events`)).body.items as any[]).filter((e) => e.regarding?.name === name);
const waitEvent = (name: string, reason: string) => until(async () => (await events(name)).find((e) => e.reason === reason), `a ${reason} event of ${name}`);

/** A Job owned by the CronJob, finished as `finished` says (Complete or Failed) at `startTime`. */
async function ownedJob(cj: any, name: string, finished?: "Complete" | "Failed", startTime = Date.now()) {
  const owner = { apiVersion: "batch/v1", kind: "CronJob", name: cj.metadata.name, uid: cj.metadata.uid, controller: true };
  const r = await s.call("POST", JOBS, { apiVersion: "batch/v1", kind: "Job", metadata: { name, ownerReferences: [owner] }, spec: jobTemplate.spec });
  expect(r.status).toBe(201);
  if (finished) {
    const status: Record<string, unknown> = { startTime: rfc3339(startTime), conditions: [{ type: finished, status: "True", lastTransitionTime: rfc3339(startTime + 1000) }] };
    if (finished === "Complete") Object.assign(status, { completionTime: rfc3339(startTime + 1000), succeeded: 1 });
    else status.failed = 1;
    expect((await s.call("PATCH", `${JOBS}/${name}/status`, { status }, MERGE)).status).toBe(200);
  }
  return r.body;
}

test("a CronJob behind on its schedule starts the job of the latest minute at once; a finished job leaves status.active", async () => {
  const before = Date.now();
  const cj = await cronJob("tick", {}, () => ({ lastScheduleTime: rfc3339(before - 3 * 60_000) }));
  const [job] = await until(async () => { const j = await jobsOf(cj); return j.length ? j : undefined; }, "the job");
  const minutes = Number(job.metadata.name.slice("tick-".length));
  expect(minutes * 60_000).toBeGreaterThan(before - 3 * 60_000);
  expect(minutes * 60_000).toBeLessThanOrEqual(Date.now());
  expect(job.metadata.labels).toMatchObject({ app: "tick" });
  expect(job.metadata.ownerReferences).toEqual([{ apiVersion: "batch/v1", kind: "CronJob", name: "tick", uid: cj.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  expect(job.spec.template.spec.containers[0].command).toEqual(["true"]);
  const status = await until(async () => { const c = await getCJ("tick"); return c.status?.active?.length ? c.status : undefined; }, "status.active");
  expect(status.active).toEqual([expect.objectContaining({ kind: "Job", apiVersion: "batch/v1", namespace: NS, name: job.metadata.name, uid: job.metadata.uid })]);
  expect(status.lastScheduleTime).toBe(rfc3339(minutes * 60_000));
  expect((await waitEvent("tick", "SuccessfulCreate")).note).toBe(`Created job ${job.metadata.name}`);

  // the job finishes: it leaves the active list and its completion is the last success
  const done = rfc3339(Date.now());
  await s.call("PATCH", `${JOBS}/${job.metadata.name}/status`, { status: { startTime: done, completionTime: done, succeeded: 1, conditions: [{ type: "Complete", status: "True", lastTransitionTime: done }] } }, MERGE);
  const after = await until(async () => { const c = await getCJ("tick"); return c.status?.active ? undefined : c.status; }, "an empty status.active");
  expect(after.lastSuccessfulTime).toBe(done);
  expect((await waitEvent("tick", "SawCompletedJob")).note).toBe(`Saw completed job: ${job.metadata.name}, status: Complete`);
  await s.call("DELETE", `${CJS}/tick`);
});

test("a CronJob fires at its next scheduled time", async () => {
  const r = await s.call("POST", CJS, { apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "every" }, spec: { schedule: "@every 2s", jobTemplate } });
  expect(r.status).toBe(201);
  const created = Date.parse(r.body.metadata.creationTimestamp);
  const [job] = await until(async () => { const j = await jobsOf(r.body); return j.length ? j : undefined; }, "the job", 15_000);
  // the first time in the schedule is two seconds after the CronJob's creation
  expect(Date.parse(job.metadata.creationTimestamp)).toBeGreaterThanOrEqual(created + 2000);
  expect(job.metadata.name).toBe(`every-${Math.floor((created + 2000) / 60_000)}`);
  await s.call("DELETE", `${CJS}/every`);
});

test("concurrencyPolicy Forbid keeps the running job and starts none; Replace deletes it and starts the new one", async () => {
  for (const policy of ["Forbid", "Replace"]) {
    const name = policy.toLowerCase();
    const cj = await cronJob(name, { concurrencyPolicy: policy }, undefined, true);
    const running = await ownedJob(cj, `${name}-1`);
    const ref = { kind: "Job", apiVersion: "batch/v1", namespace: NS, name: running.metadata.name, uid: running.metadata.uid };
    expect((await s.call("PATCH", `${CJS}/${name}/status`, { status: { active: [ref], lastScheduleTime: rfc3339(Date.now() - 3 * 60_000) } }, MERGE)).status).toBe(200);
    expect((await s.call("PATCH", `${CJS}/${name}`, { spec: { suspend: false } }, MERGE)).status).toBe(200);
    if (policy === "Forbid") {
      expect((await waitEvent(name, "JobAlreadyActive")).note).toBe("Not starting job because prior execution is running and concurrency policy is Forbid");
      expect((await jobsOf(cj)).map((j) => j.metadata.name)).toEqual([`${name}-1`]);
    } else {
      expect((await waitEvent(name, "SuccessfulDelete")).note).toBe(`Deleted job ${name}-1`);
      const jobs = await until(async () => { const j = (await jobsOf(cj)).filter((x) => !x.metadata.deletionTimestamp); return j.length === 1 && j[0].metadata.name !== `${name}-1` ? j : undefined; }, "only the new job");
      const c = await until(async () => { const c = await getCJ(name); return c.status?.active?.[0]?.uid === jobs[0].metadata.uid ? c : undefined; }, "the new job active");
      expect(c.status.active).toHaveLength(1);
    }
  }
});

test("a suspended CronJob starts nothing; finished jobs beyond the history limits are deleted, oldest first", async () => {
  const cj = await cronJob("history", { successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1 }, () => ({ lastScheduleTime: rfc3339(Date.now() - 3 * 60_000) }), true);
  const t0 = Date.now() - 600_000;
  for (const [i, finished] of (["Complete", "Complete", "Complete", "Failed", "Failed"] as const).entries()) await ownedJob(cj, `history-${i}`, finished, t0 + i * 60_000);
  await until(async () => { const j = await jobsOf(cj); return j.filter((x) => !x.metadata.deletionTimestamp).length === 2 ? j : undefined; }, "two jobs left");
  expect((await jobsOf(cj)).filter((x) => !x.metadata.deletionTimestamp).map((j) => j.metadata.name).sort()).toEqual(["history-2", "history-4"]);
  const deleted = (await until(async () => { const e = (await events("history")).filter((x) => x.reason === "SuccessfulDelete"); return e.length === 3 ? e : undefined; }, "three SuccessfulDelete events"));
  expect(deleted.map((e) => e.note).sort()).toEqual(["Deleted job history-0", "Deleted job history-1", "Deleted job history-3"]);
  // suspended: nothing was started
  expect((await jobsOf(cj)).some((j) => !j.metadata.name.match(/^history-\d$/))).toBe(false);
});
