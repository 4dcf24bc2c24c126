// Validation of Pods, pod templates and the workloads that carry them, keyed as index.ts finds them.
import type { Obj } from "../registry/types.ts";
import type { KindValidator } from "./index.ts";
import { Errs } from "./field.ts";
import { obj } from "./decode.ts";
import { validatePodSpec, validatePodTemplateSpec, validatePodUpdate } from "./podspec.ts";
import { checkTemplateLabels, validateAlwaysTemplate } from "./template.ts";
import { nonNegative } from "./numbers.ts";
import { validateDaemonSet, validateDeployment, validateReplicaSet, validateStatefulSet } from "./apps.ts";
import { validateCronJob, validateJob } from "./batch.ts";

type Rules = (errs: Errs, o: Obj, old?: Obj) => void;

/**
 * A kind's rules as a validator. An update that leaves the spec as it was (a status or metadata write)
 * is not checked again, as upstream's status strategies do not.
 */
function kind(rules: Rules, part = "spec"): KindValidator {
  return (o, old) => {
    if (old && Bun.deepEquals(o[part], old[part])) return [];
    const errs = new Errs();
    rules(errs, o, old);
    return errs.causes;
  };
}

function validatePod(errs: Errs, o: Obj, old?: Obj) {
  const spec = obj(o.spec, "spec");
  validatePodSpec(errs, spec, "spec");
  if (old) validatePodUpdate(errs, spec, old.spec ?? {});
}

function validateReplicationController(errs: Errs, o: Obj) {
  const spec = obj(o.spec, "spec");
  nonNegative(errs, "spec.minReadySeconds", spec.minReadySeconds);
  nonNegative(errs, "spec.replicas", spec.replicas);
  if (spec.template === undefined || spec.template === null) {
    // an empty selector is defaulted from the template's labels, so with no template there is neither
    if (!Object.keys(obj(spec.selector, "spec.selector")).length) errs.required("spec.selector");
    return errs.required("spec.template");
  }
  const template = obj(spec.template, "spec.template");
  const given = obj(spec.selector, "spec.selector");
  const selector = Object.keys(given).length ? given : obj(template.metadata, "spec.template.metadata").labels ?? {};
  if (!Object.keys(selector).length) errs.required("spec.selector");
  else checkTemplateLabels(errs, { matchLabels: selector }, template);
  validateAlwaysTemplate(errs, template, "ReplicationController");
}

export const WORKLOAD_KINDS: Record<string, KindValidator> = {
  Pod: kind(validatePod),
  PodTemplate: kind((errs, o) => validatePodTemplateSpec(errs, obj(o.template, "template"), "template"), "template"),
  ReplicationController: kind(validateReplicationController),
  "Deployment.apps": kind(validateDeployment),
  "ReplicaSet.apps": kind(validateReplicaSet),
  "StatefulSet.apps": kind(validateStatefulSet),
  "DaemonSet.apps": kind(validateDaemonSet),
  "Job.batch": kind(validateJob),
  "CronJob.batch": kind(validateCronJob),
};
