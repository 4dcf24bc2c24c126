// When a CronJob should start a job (upstream v1.21's cronjob v2 utils): the most recent scheduled time
// not yet started, counted from the last scheduled time (or the CronJob's creation), never further back
// than startingDeadlineSeconds; the job for a scheduled time, named after it in minutes since the epoch.
import type { Obj } from "../client/client.ts";
import type { Schedule } from "../util/cron.ts";
import { controllerRefTo } from "./controllerref.ts";

/** More missed start times than this raise the TooManyMissedTimes warning. */
export const MISSED_TIMES_WARNING = 100;
/** Added to the next scheduled time when requeueing, for clock skew. */
const NEXT_SCHEDULE_DELTA_MS = 100;

export interface Unmet {
  /** The latest scheduled time in (earliest, now], if any. */
  time?: number;
  /** How many scheduled times fell in that window. */
  missed: number;
}

/** The latest scheduled time after `earliest` and not after `now`, and how many there were. */
export function mostRecentScheduleTime(earliest: number, now: number, sched: Schedule): Unmet {
  const t1 = sched.next(earliest);
  if (t1 === undefined || now < t1) return { missed: 0 };
  const t2 = sched.next(t1);
  if (t2 !== undefined && now < t2) return { time: t1, missed: 1 };
  // e.g. a schedule of a day that never comes again ("0 0 30 2 *")
  const between = t2 === undefined ? 0 : Math.round((t2 - t1) / 1000);
  if (between < 1) throw new Error("time difference between two schedules less than 1 second");
  const missed = Math.trunc((now - t1) / 1000 / between) + 1;
  return { time: t1 + (missed - 1) * between * 1000, missed };
}

/**
 * The scheduled time a CronJob has not started yet, as of `now`. Times older than startingDeadlineSeconds
 * are never looked at (so upstream's MissSchedule check after this one can never fire).
 */
export function nextScheduleTime(cj: Obj, now: number, sched: Schedule): Unmet {
  let earliest = Date.parse(cj.status?.lastScheduleTime ?? cj.metadata.creationTimestamp);
  const deadline = cj.spec.startingDeadlineSeconds;
  // nothing older than the starting deadline is started
  if (deadline != null) earliest = Math.max(earliest, now - deadline * 1000);
  if (earliest > now) return { missed: 0 };
  return mostRecentScheduleTime(earliest, now, sched);
}

/** How long until the schedule's next time (plus a little), from `now`. */
export function untilNext(sched: Schedule, now: number): number | undefined {
  const next = sched.next(now);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now;
}

/** `<cronjob>-<scheduled time in minutes since the epoch>`: one name per scheduled time, so a time starts one job. */
export const jobName = (cj: Obj, scheduled: number): string => `${cj.metadata.name}-${Math.floor(scheduled / 60_000)}`;

/** The Job a CronJob starts for a scheduled time: its template's labels, annotations and spec, owned by the CronJob. */
export function jobFromTemplate(cj: Obj, scheduled: number): Obj {
  const tmpl = cj.spec.jobTemplate ?? {};
  const metadata: Obj = { name: jobName(cj, scheduled), namespace: cj.metadata.namespace, ownerReferences: [controllerRefTo(cj, "batch/v1", "CronJob")] };
  if (tmpl.metadata?.labels) metadata.labels = { ...tmpl.metadata.labels };
  if (tmpl.metadata?.annotations) metadata.annotations = { ...tmpl.metadata.annotations };
  return { apiVersion: "batch/v1", kind: "Job", metadata, spec: structuredClone(tmpl.spec ?? {}) };
}

/** What a CronJob's sync does at `now`, once its active list is up to date (upstream's syncCronJob, its decisions). */
export type Plan =
  | { action: "none" }
  | { action: "unparseable"; error: string }
  | { action: "invalid"; error: string }
  /** Nothing due: check again after `requeue` ms. `tooMany` when more than MISSED_TIMES_WARNING times were missed. */
  | { action: "wait"; requeue?: number; tooMany?: number }
  | { action: "forbidden"; requeue?: number; tooMany?: number }
  /** Start the job for `scheduled`, after deleting the active jobs when the policy is Replace. */
  | { action: "start"; scheduled: number; replace: boolean; requeue?: number; tooMany?: number };

export function plan(cj: Obj, now: number, parse: (spec: string) => Schedule): Plan {
  if (cj.metadata.deletionTimestamp || cj.spec.suspend === true) return { action: "none" };
  let sched: Schedule;
  try {
    sched = parse(cj.spec.schedule);
  } catch (e) {
    return { action: "unparseable", error: (e as Error).message };
  }
  let unmet: Unmet;
  try {
    unmet = nextScheduleTime(cj, now, sched);
  } catch (e) {
    return { action: "invalid", error: (e as Error).message };
  }
  const requeue = untilNext(sched, now);
  const tooMany = unmet.missed > MISSED_TIMES_WARNING ? unmet.missed : undefined;
  const scheduled = unmet.time;
  if (scheduled === undefined) return { action: "wait", requeue, tooMany };
  const active: Obj[] = cj.status?.active ?? [];
  const name = jobName(cj, scheduled);
  const last = cj.status?.lastScheduleTime;
  if (active.some((r) => r.name === name && r.namespace === cj.metadata.namespace) || (last && Date.parse(last) === scheduled)) return { action: "wait", requeue, tooMany };
  if (cj.spec.concurrencyPolicy === "Forbid" && active.length) return { action: "forbidden", requeue, tooMany };
  return { action: "start", scheduled, replace: cj.spec.concurrencyPolicy === "Replace", requeue, tooMany };
}
