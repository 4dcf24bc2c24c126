// Defaults of the batch/v1 kinds. Upstream gives a CronJob's job template the pod template's defaults
// but not a Job's own (parallelism, backoffLimit stay unset there).
import type { Obj } from "../registry/types.ts";
import { child, fill, fillZero, isEmptyMap, sub } from "./fill.ts";
import { defaultPodTemplate } from "./pod.ts";
import { isMap } from "../util/ismap.ts";

/** A Job without labels takes its pod template's. */
export function defaultJobLabels(job: Obj): void {
  const labels = sub(sub(sub(job, "spec"), "template"), "metadata")?.labels;
  if (isMap(labels) && isEmptyMap(job.metadata.labels)) job.metadata.labels = { ...labels };
}

// completionMode and suspend are defaulted only from v1.22 (IndexedJob and SuspendJob are alpha in v1.21).
export function defaultJob(job: Obj): void {
  const sp = child(job, "spec");
  // a non-parallel job: one pod, to one completion
  if (sp.completions == null && sp.parallelism == null) sp.completions = 1;
  fill(sp, { parallelism: 1, backoffLimit: 6 });
  defaultJobLabels(job);
  defaultPodTemplate(sp.template);
}

export function defaultCronJob(cj: Obj): void {
  const sp = child(cj, "spec");
  fillZero(sp, { concurrencyPolicy: "Allow" });
  fill(sp, { suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  defaultPodTemplate(sub(sub(sp, "jobTemplate"), "spec")?.template);
}
