// Job and CronJob (batch/v1), as upstream's batch validation has them.
import type { Obj } from "../registry/types.ts";
import { goStringMap, Printed, type Errs } from "./field.ts";
import { int, obj, str } from "./decode.ts";
import { nonNegative } from "./numbers.ts";
import { restartPolicy, validatePodTemplateSpec } from "./podspec.ts";
import { goSelector, labelSelector, selects } from "./labels.ts";
import { dns1123Label } from "./names.ts";
import { checkTemplateLabels } from "./template.ts";
import { scheduleError } from "./cron.ts";

const COMPLETION_MODES = ["NonIndexed", "Indexed"];
const MAX_INDEXED_PARALLELISM = 100000;
const CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"];

/** What a Job's spec and a CronJob's job template share: counts, deadlines and a template of pods that end. */
function validateJobSpecCommon(errs: Errs, spec: Obj, path: string) {
  for (const f of ["parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"]) nonNegative(errs, `${path}.${f}`, spec[f]);
  const template = obj(spec.template, `${path}.template`);
  validatePodTemplateSpec(errs, template, `${path}.template`);
  const restart = restartPolicy(template.spec);
  if (restart !== "OnFailure" && restart !== "Never") errs.notSupported(`${path}.template.spec.restartPolicy`, restart, ["OnFailure", "Never"]);
}

function validateJobSpec(errs: Errs, spec: Obj) {
  validateJobSpecCommon(errs, spec, "spec");
  const sel = spec.selector === undefined || spec.selector === null ? undefined : obj(spec.selector, "spec.selector");
  if (!sel) errs.required("spec.selector");
  else labelSelector(errs, "spec.selector", sel);
  checkTemplateLabels(errs, sel, obj(spec.template, "spec.template"));
  const mode = str(spec.completionMode, "spec.completionMode");
  if (mode && !COMPLETION_MODES.includes(mode)) errs.notSupported("spec.completionMode", mode, COMPLETION_MODES);
  if (mode === "Indexed") {
    if (spec.completions === undefined || spec.completions === null) errs.required("spec.completions", "when completion mode is Indexed");
    const parallelism = int(spec.parallelism, "spec.parallelism");
    if (parallelism !== undefined && parallelism > MAX_INDEXED_PARALLELISM) {
      errs.invalid("spec.parallelism", parallelism, `must be less than or equal to ${MAX_INDEXED_PARALLELISM} when completion mode is Indexed`);
    }
  }
}

/** Without manualSelector the selector and the template's labels are the generated ones, naming this job. */
function validateGeneratedSelector(errs: Errs, o: Obj) {
  const spec = o.spec ?? {};
  if (spec.manualSelector === true || !spec.selector) return;
  const uid = String(o.metadata.uid ?? ""), name = String(o.metadata.name ?? "");
  if (!uid) errs.required("metadata.uid");
  const labels = spec.template?.metadata?.labels ?? {};
  for (const [key, want] of [["controller-uid", uid], ["job-name", name]]) {
    const path = `spec.template.metadata.labels[${key}]`;
    if (!(key in labels)) errs.required(path, want);
    else if (labels[key] !== want) errs.invalid(path, new Printed(goStringMap(labels)), want);
  }
  if (selects(spec.selector, { "controller-uid": uid, "job-name": name }) === false) errs.invalid("spec.selector", new Printed(goSelector(spec.selector)), "`selector` not auto-generated");
}

/** The job's spec fields an update may not change (v1.21: the template too). */
const JOB_IMMUTABLE = ["completions", "selector", "template", "completionMode"];

export function validateJob(errs: Errs, o: Obj, old?: Obj) {
  const spec = obj(o.spec, "spec");
  validateGeneratedSelector(errs, o);
  validateJobSpec(errs, spec);
  const completions = int(spec.completions, "spec.completions");
  if (spec.completionMode === "Indexed" && completions !== undefined && completions > 0) {
    const hostname = `${o.metadata.name}-${completions - 1}`;
    if (dns1123Label(hostname).length) {
      errs.invalid("metadata.name", o.metadata.name, `will not able to create pod with invalid DNS label: ${hostname}`);
    }
  }
  if (!old) return;
  for (const f of JOB_IMMUTABLE) {
    if (Bun.deepEquals(spec[f] ?? null, old.spec?.[f] ?? null)) continue;
    const value = f === "selector" ? new Printed(goSelector(spec[f])) : f === "template" ? new Printed("core.PodTemplateSpec{...}") : spec[f];
    errs.immutable(`spec.${f}`, value);
  }
}

export function validateCronJob(errs: Errs, o: Obj, old?: Obj) {
  const spec = obj(o.spec, "spec");
  const schedule = str(spec.schedule, "spec.schedule");
  if (!schedule) errs.required("spec.schedule");
  else {
    const bad = scheduleError(schedule);
    if (bad) errs.invalid("spec.schedule", schedule, bad);
  }
  nonNegative(errs, "spec.startingDeadlineSeconds", spec.startingDeadlineSeconds);
  const policy = str(spec.concurrencyPolicy, "spec.concurrencyPolicy");
  if (policy && !CONCURRENCY_POLICIES.includes(policy)) errs.notSupported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES);
  const jobSpec = obj(obj(spec.jobTemplate, "spec.jobTemplate").spec, "spec.jobTemplate.spec");
  validateJobSpecCommon(errs, jobSpec, "spec.jobTemplate.spec");
  if (jobSpec.selector !== undefined && jobSpec.selector !== null) errs.invalid("spec.jobTemplate.spec.selector", new Printed(goSelector(jobSpec.selector)), "`selector` will be auto-generated");
  if (jobSpec.manualSelector === true) errs.notSupported("spec.jobTemplate.spec.manualSelector", true, ["nil", "false"]);
  nonNegative(errs, "spec.successfulJobsHistoryLimit", spec.successfulJobsHistoryLimit);
  nonNegative(errs, "spec.failedJobsHistoryLimit", spec.failedJobsHistoryLimit);
  // The controller names each job `<cronjob>-<11 characters>`; older, longer names may still be updated.
  if (!old && String(o.metadata.name ?? "").length > 52) errs.invalid("metadata.name", o.metadata.name, "must be no more than 52 characters");
}
