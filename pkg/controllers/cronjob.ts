// The cronjob controller (upstream v1.21's CronJob controller v2): a CronJob is synced when it or one of
// its jobs changes and again at its next scheduled time. A sync reconciles status.active with the jobs
// (finished ones leave it, vanished ones too), starts the job of the most recent unmet scheduled time
// (unless suspended, past startingDeadlineSeconds, or forbidden by concurrencyPolicy; Replace deletes the
// running jobs first), records lastScheduleTime, and deletes the oldest finished jobs beyond the history
// limits. Times are read in the controller's local zone unless the schedule names one (TZ=...).
import { isAlreadyExists, isNotFound, type Obj } from "../client/client.ts";
import { referenceTo, type EventRecorder } from "../client/events.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { objectOf, type DeletedFinalStateUnknown } from "../client/store.ts";
import { rfc3339 } from "../client/time.ts";
import { parseSchedule } from "../util/cron.ts";
import { KeyedController, keyOf, type ControllerContext, type ControllerInit } from "./framework.ts";
import { jobFromTemplate, plan, untilNext } from "./cronjobschedule.ts";
import { CONTROLLER_UID_INDEX, controllerOf, controllerUIDIndex } from "./controllerref.ts";
import { finishedCondition } from "./jobstate.ts";

/** Finished jobs by start time (unstarted last), then name: the first ones are deleted first. */
function byStartTime(a: Obj, b: Obj): number {
  const sa = a.status?.startTime, sb = b.status?.startTime;
  if (sa && sb && sa !== sb) return Date.parse(sa) - Date.parse(sb);
  if (!sa !== !sb) return sa ? -1 : 1;
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

export class CronJobController extends KeyedController {
  private readonly cronjobs: SharedInformer;
  private readonly jobs: SharedInformer;
  private readonly recorder: EventRecorder;

  /** `now` is the controller's clock (ms since the epoch). */
  constructor(private readonly ctx: ControllerContext, private readonly now: () => number = Date.now) {
    // a CronJob is never dropped from the queue: nothing else would bring it back at its next time
    super("cronjob", Number.POSITIVE_INFINITY);
    this.recorder = ctx.events.newRecorder("cronjob-controller");
    this.cronjobs = ctx.factory.informerFor(RESOURCES.cronjobs);
    this.jobs = ctx.factory.informerFor(RESOURCES.jobs, { indexers: { [CONTROLLER_UID_INDEX]: controllerUIDIndex } });
    this.cronjobs.addEventHandler({ add: this.enqueue, update: (old, cur) => this.updateCronJob(old, cur), delete: this.enqueue });
    this.jobs.addEventHandler({
      add: (j) => this.jobEvent(j),
      update: (old, cur) => {
        if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
        if (controllerOf(old)?.uid !== controllerOf(cur)?.uid) this.jobEvent(old);
        this.jobEvent(cur);
      },
      delete: (j) => this.jobEvent(j),
    });
  }

  private jobEvent(j: Obj | DeletedFinalStateUnknown): void {
    const job = objectOf(j), ref = controllerOf(job);
    if (ref?.kind !== "CronJob") return;
    const cj = this.cronjobs.store.get(`${job.metadata.namespace}/${ref.name}`);
    if (cj && cj.metadata.uid === ref.uid) this.enqueue(cj);
  }

  private updateCronJob(old: Obj, cur: Obj): void {
    if (old.spec?.schedule === cur.spec?.schedule) return this.enqueue(cur);
    // a new schedule is looked at when it is next due
    let wait: number | undefined;
    try { wait = untilNext(parseSchedule(cur.spec.schedule), this.now()); } catch { /* the sync reports it */ }
    this.queue.addAfter(keyOf(cur), wait ?? 0);
  }

  protected async sync(key: string): Promise<void> {
    const shared = this.cronjobs.store.get(key);
    if (!shared) return;
    const jobs = this.jobs.store.byIndex(CONTROLLER_UID_INDEX, shared.metadata.uid).filter((j) => j.metadata.namespace === shared.metadata.namespace);
    const cj = structuredClone(shared);
    cj.status ??= {};
    const requeue = await this.syncCronJob(cj, jobs);
    await this.cleanupFinishedJobs(cj, jobs);
    if (requeue !== undefined) this.queue.addAfter(key, requeue);
  }

  /** Returns when to look at the CronJob again (undefined: only on its next change). */
  private async syncCronJob(cj: Obj, jobs: Obj[]): Promise<number | undefined> {
    const before = JSON.stringify(cj.status);
    const active = (): Obj[] => (cj.status.active ??= []);
    const inActive = (uid: string) => active().some((r) => r.uid === uid);
    const dropActive = (uid: string) => { cj.status.active = active().filter((r) => r.uid !== uid); };
    const children = new Set<string>();
    for (const j of jobs) {
      children.add(j.metadata.uid);
      const finished = finishedCondition(j);
      if (!inActive(j.metadata.uid) && !finished) {
        this.event(cj, "Warning", "UnexpectedJob", `Saw a job that the controller did not create or forgot: ${j.metadata.name}`);
      } else if (inActive(j.metadata.uid) && finished) {
        dropActive(j.metadata.uid);
        this.event(cj, "Normal", "SawCompletedJob", `Saw completed job: ${j.metadata.name}, status: ${finished.type}`);
      }
      if (finished?.type === "Complete" && j.status?.completionTime) {
        const last = cj.status.lastSuccessfulTime;
        if (!last || Date.parse(j.status.completionTime) > Date.parse(last)) cj.status.lastSuccessfulTime = j.status.completionTime;
      }
    }
    for (const ref of [...active()]) {
      if (children.has(ref.uid)) continue;
      // the cache may lag: only a job the server does not have is gone
      try {
        await this.ctx.client.get(RESOURCES.jobs, ref.name, { namespace: ref.namespace });
      } catch (e) {
        if (!isNotFound(e)) throw e;
        this.event(cj, "Normal", "MissingJob", `Active job went missing: ${ref.name}`);
        dropActive(ref.uid);
      }
    }
    if (!cj.status.active.length) delete cj.status.active;
    if (JSON.stringify(cj.status) !== before) await this.writeStatus(cj);

    const now = this.now();
    const p = plan(cj, now, parseSchedule);
    if ("tooMany" in p && p.tooMany) {
      this.event(cj, "Warning", "TooManyMissedTimes", `too many missed start times: ${p.tooMany}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
    }
    switch (p.action) {
      case "none": return undefined;
      case "unparseable":
        this.event(cj, "Warning", "UnparseableSchedule", `unparseable schedule: ${JSON.stringify(cj.spec.schedule)} : ${p.error}`);
        return undefined;
      case "invalid":
        this.event(cj, "Warning", "InvalidSchedule", `invalid schedule: ${cj.spec.schedule} : ${p.error}`);
        return undefined;
      case "wait": return p.requeue;
      case "forbidden":
        this.event(cj, "Normal", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid");
        return p.requeue;
    }
    if (p.replace) {
      for (const ref of [...(cj.status.active ?? [])]) {
        let job: Obj;
        try {
          job = await this.ctx.client.get(RESOURCES.jobs, ref.name, { namespace: ref.namespace });
        } catch (e) {
          this.event(cj, "Warning", "FailedGet", `Get job: ${(e as Error).message}`);
          throw e;
        }
        if (!(await this.deleteJob(cj, job))) throw new Error(`could not replace job ${job.metadata.namespace}/${job.metadata.name}`);
      }
    }
    let made: Obj;
    try {
      made = await this.ctx.client.create(RESOURCES.jobs, jobFromTemplate(cj, p.scheduled));
    } catch (e) {
      // a namespace being deleted refuses every job; one that exists was made by another sync, which records it
      if ((e as Obj)?.details?.causes?.some?.((c: Obj) => c.type === "NamespaceTerminating")) return undefined;
      if (!isAlreadyExists(e)) this.event(cj, "Warning", "FailedCreate", `Error creating job: ${(e as Error).message}`);
      throw e;
    }
    this.event(cj, "Normal", "SuccessfulCreate", `Created job ${made.metadata.name}`, made);
    (cj.status.active ??= []).push(referenceTo(made));
    cj.status.lastScheduleTime = rfc3339(new Date(p.scheduled));
    await this.writeStatus(cj);
    return p.requeue;
  }

  /** Deletes the oldest finished jobs beyond successfulJobsHistoryLimit and failedJobsHistoryLimit. */
  private async cleanupFinishedJobs(cj: Obj, jobs: Obj[]): Promise<void> {
    const limits: [string, number | undefined][] = [["Complete", cj.spec.successfulJobsHistoryLimit], ["Failed", cj.spec.failedJobsHistoryLimit]];
    const before = JSON.stringify(cj.status);
    for (const [type, limit] of limits) {
      if (limit == null) continue;
      const finished = jobs.filter((j) => !j.metadata.deletionTimestamp && finishedCondition(j)?.type === type).sort(byStartTime);
      for (const j of finished.slice(0, Math.max(0, finished.length - limit))) await this.deleteJob(cj, j);
    }
    if (JSON.stringify(cj.status) !== before) await this.writeStatus(cj);
  }

  /** Deletes a job (its pods in the background) and its reference in status.active; false on failure. */
  private async deleteJob(cj: Obj, job: Obj): Promise<boolean> {
    try {
      await this.ctx.client.delete(RESOURCES.jobs, job.metadata.name, { namespace: job.metadata.namespace, propagationPolicy: "Background" });
    } catch (e) {
      this.event(cj, "Warning", "FailedDelete", `Deleted job: ${(e as Error).message}`);
      return false;
    }
    if (cj.status.active) cj.status.active = cj.status.active.filter((r: Obj) => r.uid !== job.metadata.uid);
    if (!cj.status.active?.length) delete cj.status.active;
    this.event(cj, "Normal", "SuccessfulDelete", `Deleted job ${job.metadata.name}`, job);
    return true;
  }

  /**
   * A plain status update, as upstream's CronJob controller writes it: a conflict means the sync worked on a
   * stale copy (its status may miss a job just made), so it fails and the sync runs again on a fresh one.
   */
  private async writeStatus(cj: Obj): Promise<void> {
    cj.metadata.resourceVersion = (await this.ctx.client.update(RESOURCES.cronjobs, cj, { subresource: "status" })).metadata.resourceVersion;
  }

  private event(cj: Obj, type: "Normal" | "Warning", reason: string, note: string, related?: Obj): void {
    this.recorder.event(cj, related, type, reason, "Sync", note);
  }
}

export const initCronJobController: ControllerInit = (ctx) => new CronJobController(ctx);
