// The job controller (upstream v1.21's pkg/controller/job): runs a Job's pods to completion — parallelism
// pods at a time, never more than the completions left (Indexed jobs: one pod per pending index) — counts
// succeeded and failed pods into the status, fails the job past backoffLimit or activeDeadlineSeconds
// (deleting its active pods), completes it once enough pods succeeded, and suspends it (deleting its active
// pods) while spec.suspend is true. A failed pod is replaced after an exponential backoff (10 s doubling to
// 6 min from the job's second failure on).
import { isNotFound, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import { ItemExponentialFailureRateLimiter } from "../client/ratelimiters.ts";
import { RESOURCES } from "../client/resources.ts";
import type { SharedInformer } from "../client/informer.ts";
import { objectOf, type DeletedFinalStateUnknown } from "../client/store.ts";
import { rfc3339 } from "../client/time.ts";
import { WorkQueue } from "../client/workqueue.ts";
import { KeyedController, keyOf, type ControllerContext, type ControllerInit } from "./framework.ts";
import { completionIndex, duplicateIndexPods, firstPendingIndexes, isIndexedJob, succeededIndexes, templateForIndex, withCompletionIndexEnv } from "./jobindexes.ts";
import { CONTROLLER_UID_INDEX, controllerOf, controllerRefTo, controllerUIDIndex } from "./controllerref.ts";
import { compareForRemoval, createInBatches, Expectations } from "./jobpods.ts";
import { PodControl } from "./podcontrol.ts";
import { isPodActive } from "./podutil.ts";
import { isJobFinished } from "./jobstate.ts";
import { writeStatus } from "./status.ts";

const JOB_BACKOFF_MS = 10_000;
const MAX_JOB_BACKOFF_MS = 360_000;
/** Upstream's cap on pods created or deleted in one sync. */
const MAX_POD_CHANGES_PER_SYNC = 500;

/** The delay before a job with `failures` recorded failed syncs is synced again (upstream's getBackoff). */
export function jobBackoff(failures: number): number {
  return failures <= 0 ? 0 : Math.min(JOB_BACKOFF_MS * 2 ** (failures - 1), MAX_JOB_BACKOFF_MS);
}

const condition = (type: string, status: string, reason?: string, message?: string): Obj => {
  const now = rfc3339(new Date());
  const c: Obj = { type, status, lastProbeTime: now, lastTransitionTime: now };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
};

/** Sets a condition's status (appending it unless it would be a new False one); true when it changed. */
function ensureCondition(conditions: Obj[], type: string, status: string, reason: string, message: string): boolean {
  const c = conditions.find((x) => x.type === type);
  if (c) {
    if (c.status === status && c.reason === reason && c.message === message) return false;
    Object.assign(c, { status, reason, message, lastTransitionTime: rfc3339(new Date()) });
    return true;
  }
  if (status === "False") return false;
  conditions.push(condition(type, status, reason, message));
  return true;
}

const isSuspended = (job: Obj) => job.spec?.suspend === true;

/** Restarts of the containers of running and pending pods reached backoffLimit (restartPolicy OnFailure). */
function pastBackoffLimitOnFailure(job: Obj, pods: Obj[]): boolean {
  if (job.spec.template?.spec?.restartPolicy !== "OnFailure") return false;
  let restarts = 0;
  for (const p of pods) {
    if (p.status?.phase !== "Running" && p.status?.phase !== "Pending") continue;
    for (const c of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) restarts += c.restartCount ?? 0;
  }
  const limit = job.spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

function pastActiveDeadline(job: Obj, now: number): boolean {
  const ads = job.spec.activeDeadlineSeconds;
  if (ads == null || !job.status?.startTime || isSuspended(job)) return false;
  return now - Date.parse(job.status.startTime) >= ads * 1000;
}

/** Pods in `phase`; for an Indexed job only those with a valid index below completions. */
function countPhase(job: Obj, pods: Obj[], phase: string): number {
  const indexed = isIndexedJob(job);
  return pods.filter((p) => p.status?.phase === phase && (!indexed || (completionIndex(p) ?? Infinity) < job.spec.completions)).length;
}

export class JobController extends KeyedController {
  protected override readonly queue = new WorkQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter<string>(JOB_BACKOFF_MS, MAX_JOB_BACKOFF_MS) });
  private readonly jobs: SharedInformer;
  private readonly pods: SharedInformer;
  private readonly recorder: EventRecorder;
  private readonly podControl: PodControl;
  private readonly expectations = new Expectations();
  /** Failed syncs per job since its status last moved on (upstream's NumRequeues of the key). */
  private readonly failures = new Map<string, number>();
  /**
   * Jobs this controller wrote finished, by uid, until they are deleted: the informer may not show that
   * status yet, and a sync on the stale copy must not start new pods (their failed pods are gone).
   */
  private readonly finished = new Set<string>();

  constructor(private readonly ctx: ControllerContext) {
    super("job", Number.POSITIVE_INFINITY);
    this.recorder = ctx.events.newRecorder("job-controller");
    this.podControl = new PodControl(ctx.client, this.recorder);
    this.jobs = ctx.factory.informerFor(RESOURCES.jobs);
    this.pods = ctx.factory.informerFor(RESOURCES.pods, { indexers: { [CONTROLLER_UID_INDEX]: controllerUIDIndex } });
    this.jobs.addEventHandler({
      add: this.enqueue, update: (old, cur) => this.updateJob(old, cur),
      delete: (j) => { this.finished.delete(objectOf(j).metadata.uid); this.enqueue(j); },
    });
    this.pods.addEventHandler({
      add: (p) => (p.metadata.deletionTimestamp ? this.deletePod(p) : this.podEvent(p, true, "created")),
      update: (old, cur) => this.updatePod(old, cur),
      delete: (p) => this.deletePod(p),
    });
  }

  /** The job a pod's controller reference names, if it is in the cache. */
  private jobOf(pod: Obj): Obj | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== "Job") return undefined;
    const job = this.jobs.store.get(`${pod.metadata.namespace}/${ref.name}`);
    return job?.metadata.uid === ref.uid ? job : undefined;
  }

  /** Queues the job now, or (immediate false) after the job's backoff. */
  private enqueueJob(job: Obj, immediate: boolean): void {
    const key = keyOf(job);
    this.queue.addAfter(key, immediate ? 0 : jobBackoff(this.failures.get(key) ?? 0));
  }

  private podEvent(pod: Obj, immediate: boolean, observed?: "created"): void {
    const job = this.jobOf(pod);
    if (!job) return;
    if (observed) this.expectations.creationObserved(keyOf(job));
    this.enqueueJob(job, immediate);
  }

  private updatePod(old: Obj, cur: Obj): void {
    if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
    if (cur.metadata.deletionTimestamp) return this.deletePod(cur);
    // only a failed pod waits for the job's backoff
    const immediate = cur.status?.phase !== "Failed";
    const oldJob = this.jobOf(old);
    if (oldJob && oldJob !== this.jobOf(cur)) this.enqueueJob(oldJob, immediate);
    this.podEvent(cur, immediate);
  }

  private deletePod(p: Obj | DeletedFinalStateUnknown): void {
    const job = this.jobOf(objectOf(p));
    if (!job) return;
    this.expectations.deletionObserved(keyOf(job));
    this.enqueueJob(job, true);
  }

  private updateJob(old: Obj, cur: Obj): void {
    this.enqueue(cur);
    // a changed activeDeadlineSeconds is checked again when it runs out
    const ads = cur.spec?.activeDeadlineSeconds;
    if (cur.status?.startTime && ads != null && old.spec?.activeDeadlineSeconds !== ads) {
      this.queue.addAfter(keyOf(cur), ads * 1000 - (Date.now() - Date.parse(cur.status.startTime)));
    }
  }

  protected async sync(key: string): Promise<void> {
    const shared = this.jobs.store.get(key);
    if (!shared) {
      this.expectations.forget(key);
      this.failures.delete(key);
      return;
    }
    if (isJobFinished(shared) || this.finished.has(shared.metadata.uid)) return;
    const mode = shared.spec?.completionMode;
    if (mode && mode !== "NonIndexed" && mode !== "Indexed") {
      this.recorder.event(shared, undefined, "Warning", "UnknownCompletionMode", "Sync", "Skipped Job sync because completion mode is unknown");
      return;
    }
    const job = structuredClone(shared);
    job.status ??= {};
    const status = job.status;
    const conditions: Obj[] = (status.conditions ??= []);
    const needsSync = this.expectations.satisfied(key);
    const pods = this.pods.store.byIndex(CONTROLLER_UID_INDEX, job.metadata.uid).filter((p) => p.metadata.namespace === job.metadata.namespace);
    const activePods = pods.filter(isPodActive);
    let active = activePods.length;
        let succeeded = countPhase(job, pods, "Succeeded");
    let failed = countPhase(job, pods, "Failed");
    const now = Date.now();
    if (!status.startTime && !isSuspended(job)) {
      status.startTime = rfc3339(new Date(now));
      if (job.spec.activeDeadlineSeconds != null) this.queue.addAfter(key, job.spec.activeDeadlineSeconds * 1000);
    }

    const parallelism = job.spec.parallelism ?? 1;
    const newFailure = failed > (status.failed ?? 0);
    // a failure is new while the status does not count it and the job is not back to full parallelism
    const exceedsBackoffLimit = newFailure && active !== parallelism && failed > (job.spec.backoffLimit ?? 6);
    let failure: [string, string] | undefined;
    if (exceedsBackoffLimit || pastBackoffLimitOnFailure(job, pods)) failure = ["BackoffLimitExceeded", "Job has reached the specified backoff limit"];
    else if (pastActiveDeadline(job, now)) failure = ["DeadlineExceeded", "Job was active longer than specified deadline"];

    let completedIndexes: string | undefined;
    if (isIndexedJob(job)) ({ text: completedIndexes, count: succeeded } = succeededIndexes(pods, job.spec.completions));
    let conditionsChanged = false;
    let manageError: unknown;
    if (failure) {
      manageError = (await this.deletePods(job, "", activePods)).error;
      failed += active;
      active = 0;
      conditions.push(condition("Failed", "True", ...failure));
      conditionsChanged = true;
      this.recorder.event(job, undefined, "Warning", failure[0], "Sync", failure[1]);
    } else {
      let managed = false;
      if (needsSync && !job.metadata.deletionTimestamp) {
        ({ active, error: manageError } = await this.manage(key, job, activePods, succeeded, pods));
        managed = true;
      }
      const completions = job.spec.completions;
      const complete = completions == null ? succeeded > 0 && active === 0 : succeeded >= completions && active === 0;
      if (complete) {
        if (completions != null && succeeded > completions) this.recorder.event(job, undefined, "Warning", "TooManySucceededPods", "Sync", "Too many succeeded pods running after completion count reached");
        conditions.push(condition("Complete", "True"));
        conditionsChanged = true;
        status.completionTime = rfc3339(new Date());
        this.recorder.event(job, undefined, "Normal", "Completed", "Sync", "Job completed");
      } else if (managed) {
        if (isSuspended(job)) {
          if (ensureCondition(conditions, "Suspended", "True", "JobSuspended", "Job suspended")) {
            conditionsChanged = true;
            this.recorder.event(job, undefined, "Normal", "Suspended", "Sync", "Job suspended");
          }
        } else if (ensureCondition(conditions, "Suspended", "False", "JobResumed", "Job resumed")) {
          conditionsChanged = true;
          this.recorder.event(job, undefined, "Normal", "Resumed", "Sync", "Job resumed");
          // activeDeadlineSeconds counts from the resumption
          status.startTime = rfc3339(new Date());
        }
      }
    }

    if (succeeded > (status.succeeded ?? 0)) this.failures.delete(key);
    if ((status.active ?? 0) !== active || (status.succeeded ?? 0) !== succeeded || (status.failed ?? 0) !== failed || conditionsChanged) {
      Object.assign(status, { active, succeeded, failed });
      for (const f of ["active", "succeeded", "failed"] as const) if (status[f] === 0) delete status[f];
      if (completedIndexes !== undefined) status.completedIndexes = completedIndexes;
      if (!conditions.length) delete status.conditions;
      await writeStatus(this.ctx.client, RESOURCES.jobs, job);
      if (isJobFinished(job)) this.finished.add(job.metadata.uid);
      if (newFailure && !isJobFinished(job)) {
        // synced again after the backoff, which grows with each failure
        const n = this.failures.get(key) ?? 0;
        this.failures.set(key, n + 1);
        this.queue.addAfter(key, jobBackoff(n + 1));
      } else this.failures.delete(key);
    }
    if (manageError) throw manageError;
  }

  /** Deletes or creates pods towards the active count the job wants; returns the active count after. */
  private async manage(key: string, job: Obj, activePods: Obj[], succeeded: number, pods: Obj[]): Promise<{ active: number; error?: unknown }> {
    let active = activePods.length;
    const parallelism = job.spec.parallelism ?? 1;
    if (isSuspended(job)) {
      const gone = await this.deletePods(job, key, removalOrder(job, activePods, active));
      return { active: active - gone.removed, error: gone.error };
    }
    const completions = job.spec.completions;
    // without completions: parallelism pods until one succeeds, then let the running ones finish
    const want = completions == null ? (succeeded > 0 ? active : parallelism) : Math.min(completions - succeeded, parallelism);
    const excess = removalOrder(job, activePods, Math.max(0, active - want)).slice(0, MAX_POD_CHANGES_PER_SYNC);
    if (excess.length) {
      // deletions first: creations wait for the next sync
      const gone = await this.deletePods(job, key, excess);
      return { active: active - gone.removed, error: gone.error };
    }
    if (active >= want) return { active };
    let diff = Math.min(want - active, MAX_POD_CHANGES_PER_SYNC);
    let template = job.spec.template;
    let indexes: number[] | undefined;
    if (isIndexedJob(job)) {
      indexes = firstPendingIndexes(pods, diff, completions);
      diff = indexes.length;
      template = withCompletionIndexEnv(template);
    }
    this.expectations.expect(key, diff, 0);
    let created = 0;
    const result = await createInBatches(diff, async (i) => {
      const t = indexes ? templateForIndex(template, job.metadata.name, indexes[i]) : template;
      try {
        await this.podControl.create(t, job, controllerRefTo(job, "batch/v1", "Job"));
        created++;
      } catch (e) {
        this.expectations.creationObserved(key);
        // a namespace being deleted refuses every pod: not an error of this job
        if ((e as Obj)?.details?.causes?.some?.((c: Obj) => c.type === "NamespaceTerminating")) return;
        throw e;
      }
    });
    for (let i = 0; i < result.skipped; i++) this.expectations.creationObserved(key);
    return { active: active + created, error: result.error };
  }

  /** Deletes pods in parallel; a pod already gone counts as removed. */
  private async deletePods(job: Obj, key: string, pods: Obj[]): Promise<{ removed: number; error?: unknown }> {
    if (key) this.expectations.expect(key, 0, pods.length);
    let removed = 0, error: unknown;
    await Promise.all(pods.map(async (p) => {
      try {
        await this.podControl.delete(p, job);
        removed++;
      } catch (e) {
        if (key) this.expectations.deletionObserved(key);
        if (isNotFound(e)) removed++;
        else error ??= e;
      }
    }));
    return { removed, error };
  }
}

/** The active pods to delete, at least `atLeast` of them: for Indexed jobs duplicates and bad indexes first. */
function removalOrder(job: Obj, active: Obj[], atLeast: number): Obj[] {
  let remove: Obj[] = [], rest = active;
  if (isIndexedJob(job)) ({ remove, keep: rest } = duplicateIndexPods(active, job.spec.completions));
  if (remove.length < atLeast) remove = remove.concat([...rest].sort(compareForRemoval).slice(0, atLeast - remove.length));
  return remove;
}

export const initJobController: ControllerInit = (ctx) => new JobController(ctx);
