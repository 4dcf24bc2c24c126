// The job controller's pure parts: the backoff between recreations, slow-start batches, the order in
// which active pods are given up, and Indexed jobs' index bookkeeping.
import { expect, test } from "bun:test";
import { jobBackoff } from "../../pkg/controllers/job.ts";
import { duplicateIndexPods, firstPendingIndexes, succeededIndexes, templateForIndex, withCompletionIndexEnv } from "../../pkg/controllers/jobindexes.ts";
import { controllerRefTo } from "../../pkg/controllers/controllerref.ts";
import { compareForRemoval, createInBatches, Expectations } from "../../pkg/controllers/jobpods.ts";
import { podFromTemplate } from "../../pkg/controllers/podcontrol.ts";

const pod = (name: string, o: { phase?: string; index?: string; node?: string; ready?: boolean; created?: string; restarts?: number; deleting?: boolean } = {}) => ({
  metadata: { name, creationTimestamp: o.created ?? "2021-04-08T12:00:00Z", annotations: o.index === undefined ? {} : { "batch.kubernetes.io/job-completion-index": o.index }, ...(o.deleting ? { deletionTimestamp: "2021-04-08T12:00:00Z" } : {}) },
  spec: o.node ? { nodeName: o.node } : {},
  status: { phase: o.phase ?? "Running", conditions: o.ready ? [{ type: "Ready", status: "True", lastTransitionTime: "2021-04-08T12:00:00Z" }] : [], containerStatuses: [{ restartCount: o.restarts ?? 0 }] },
});
const names = (pods: Record<string, any>[]) => pods.map((p) => p.metadata.name);

test("a failed pod is recreated at once the first time, then after 10 s doubling up to 6 minutes", () => {
  expect([0, 1, 2, 3, 6, 7, 20].map(jobBackoff)).toEqual([0, 10_000, 20_000, 40_000, 320_000, 360_000, 360_000]);
});

test("pods are created in batches of 1, 2, 4, ...; a failing batch stops the rest", async () => {
  // calls of one batch start together, before any of them ends
  const log: string[] = [];
  const r = await createInBatches(10, async () => { log.push("s"); await Bun.sleep(1); log.push("e"); });
  expect(r).toEqual({ skipped: 0, failed: 0, error: undefined });
  expect(log.join("").split(/e+/).filter(Boolean).map((run) => run.length)).toEqual([1, 2, 4, 3]);
  const failing = await createInBatches(10, async (i) => { if (i === 2) throw new Error("quota"); });
  expect(failing).toMatchObject({ skipped: 7, failed: 1 });
  expect((failing.error as Error).message).toBe("quota");
});

test("active pods are given up unscheduled first, then pending, not ready, fewer restarts last, newest first", () => {
  const pods = [
    pod("ready-old", { node: "n", ready: true, created: "2021-04-08T11:00:00Z" }),
    pod("ready-new", { node: "n", ready: true, created: "2021-04-08T12:00:00Z" }),
    pod("notready", { node: "n" }),
    pod("restarts", { node: "n", restarts: 3 }),
    pod("pending", { node: "n", phase: "Pending" }),
    pod("unscheduled", { phase: "Pending" }),
  ];
  expect(names([...pods].sort(compareForRemoval))).toEqual(["unscheduled", "pending", "restarts", "notready", "ready-new", "ready-old"]);
});

test("completed indexes are listed as intervals, counting only succeeded pods with indexes below completions", () => {
  const pods = ["0", "1", "2", "4", "5", "6", "9", "12", "x"].map((ix) => pod(`p${ix}`, { phase: "Succeeded", index: ix }));
  pods.push(pod("failed", { phase: "Failed", index: "3" }), pod("running", { index: "7" }));
  expect(succeededIndexes(pods, 10)).toEqual({ text: "0-2,4-6,9", count: 7 });
  expect(succeededIndexes([], 3)).toEqual({ text: "", count: 0 });
});

test("pending indexes are those no succeeded or active pod holds", () => {
  const pods = [pod("a", { phase: "Succeeded", index: "0" }), pod("b", { index: "2" }), pod("c", { phase: "Failed", index: "1" }), pod("d", { index: "3", deleting: true })];
  expect(firstPendingIndexes(pods, 2, 5)).toEqual([1, 3]);
  expect(firstPendingIndexes(pods, 5, 5)).toEqual([1, 3, 4]);
});

test("duplicate, missing and out-of-range indexes are removed first, keeping one pod per index", () => {
  const { remove, keep } = duplicateIndexPods([pod("a", { index: "1" }), pod("b", { index: "1" }), pod("c"), pod("d", { index: "7" }), pod("e", { index: "0" })], 5);
  expect(names(keep)).toEqual(["e", "a"]);
  expect(names(remove).sort()).toEqual(["b", "c", "d"]);
});

test("an index's pod carries the annotation, the hostname <job>-<index> and JOB_COMPLETION_INDEX from the annotation", () => {
  const template = { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", env: [{ name: "X", value: "1" }] }, { name: "d", env: [{ name: "JOB_COMPLETION_INDEX", value: "mine" }] }], initContainers: [{ name: "i" }] } };
  const t = templateForIndex(withCompletionIndexEnv(template), "work", 3);
  const env = { name: "JOB_COMPLETION_INDEX", valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } };
  expect(t.metadata.annotations).toEqual({ "batch.kubernetes.io/job-completion-index": "3" });
  expect(t.spec.hostname).toBe("work-3");
  expect(t.spec.containers[0].env).toEqual([{ name: "X", value: "1" }, env]);
  expect(t.spec.containers[1].env).toEqual([{ name: "JOB_COMPLETION_INDEX", value: "mine" }]);
  expect(t.spec.initContainers[0].env).toEqual([env]);
  expect(template.spec.containers[0].env).toHaveLength(1); // the job's template is left alone
  const job = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "work", namespace: "ns", uid: "u" } };
  const p = podFromTemplate(t, job, controllerRefTo(job, "batch/v1", "Job"));
  expect(p.metadata).toMatchObject({ generateName: "work-", namespace: "ns", labels: { a: "b" }, ownerReferences: [{ kind: "Job", name: "work", uid: "u", controller: true, blockOwnerDeletion: true }] });
  expect(() => podFromTemplate({ spec: {} }, { metadata: { name: "x" } }, controllerRefTo(job, "batch/v1", "Job"))).toThrow("unable to create pods, no labels");
});

test("expectations hold until every expected creation and deletion is seen, or five minutes pass", () => {
  let now = 0;
  const e = new Expectations(() => now);
  expect(e.satisfied("k")).toBe(true);
  e.expect("k", 2, 1);
  e.creationObserved("k");
  e.deletionObserved("k");
  expect(e.satisfied("k")).toBe(false);
  e.creationObserved("k");
  expect(e.satisfied("k")).toBe(true);
  e.expect("k", 1, 0);
  now += 5 * 60_000 + 1;
  expect(e.satisfied("k")).toBe(true);
});
