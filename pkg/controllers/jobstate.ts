// A Job's finished state as its conditions tell it, shared by the job, cronjob and ttl-after-finished
// controllers.
import type { Obj } from "../client/client.ts";

/** The Complete or Failed condition that is True, if the job has finished. */
export const finishedCondition = (job: Obj): Obj | undefined =>
  (job.status?.conditions ?? []).find((c: Obj) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");

export const isJobFinished = (job: Obj): boolean => finishedCondition(job) !== undefined;
