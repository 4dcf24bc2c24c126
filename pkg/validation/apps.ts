// Deployment, ReplicaSet, StatefulSet and DaemonSet (apps/v1), as upstream's apps validation has them.
import type { Obj } from "../registry/types.ts";
import { goIntOrString, Printed, type Errs } from "./field.ts";
import { int, obj, str } from "./decode.ts";
import { intOrPercentValue, nonNegative, notMoreThan100Percent, positiveIntOrPercent } from "./numbers.ts";
import { restartPolicy, validateTemplateMeta } from "./podspec.ts";
import { checkTemplateLabels, selectorImmutable, validateAlwaysTemplate, validateSelector } from "./template.ts";

/** An absent maxSurge or maxUnavailable is defaulted to 25% before validation. */
const orDefault = (v: unknown) => (v === undefined || v === null ? "25%" : v);

function validateDeploymentStrategy(errs: Errs, strategy: Obj) {
  const type = str(strategy.type, "spec.strategy.type") || "RollingUpdate";
  const rolling = strategy.rollingUpdate;
  if (type === "Recreate") {
    if (rolling !== undefined && rolling !== null) errs.forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'");
  } else if (type === "RollingUpdate") {
    const ru = obj(rolling, "spec.strategy.rollingUpdate");
    const maxUnavailable = orDefault(ru.maxUnavailable), maxSurge = orDefault(ru.maxSurge);
    positiveIntOrPercent(errs, "spec.strategy.rollingUpdate.maxUnavailable", maxUnavailable);
    positiveIntOrPercent(errs, "spec.strategy.rollingUpdate.maxSurge", maxSurge);
    if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0) {
      errs.invalid("spec.strategy.rollingUpdate.maxUnavailable", goIntOrString(maxUnavailable), "may not be 0 when `maxSurge` is 0");
    }
    notMoreThan100Percent(errs, "spec.strategy.rollingUpdate.maxUnavailable", maxUnavailable);
  } else {
    errs.notSupported("spec.strategy", new Printed(`apps.DeploymentStrategy{Type:${JSON.stringify(type)}, RollingUpdate:${rolling ? "&apps.RollingUpdateDeployment{...}" : "(*apps.RollingUpdateDeployment)(nil)"}}`), ["Recreate", "RollingUpdate"]);
  }
}

/** What Deployment and ReplicaSet share: replicas, selector and template (upstream words both as a ReplicaSet's). */
function validateReplicated(errs: Errs, spec: Obj) {
  nonNegative(errs, "spec.replicas", spec.replicas);
  nonNegative(errs, "spec.minReadySeconds", spec.minReadySeconds);
  if (validateSelector(errs, spec, { empty: "empty selector is invalid for deployment" })) {
    const template = obj(spec.template, "spec.template");
    checkTemplateLabels(errs, spec.selector, template);
    validateAlwaysTemplate(errs, template, "ReplicaSet");
  }
}

export function validateDeployment(errs: Errs, o: Obj, old?: Obj) {
  const spec = obj(o.spec, "spec");
  validateReplicated(errs, spec);
  validateDeploymentStrategy(errs, obj(spec.strategy, "spec.strategy"));
  nonNegative(errs, "spec.revisionHistoryLimit", spec.revisionHistoryLimit);
  const deadline = int(spec.progressDeadlineSeconds, "spec.progressDeadlineSeconds");
  if (deadline !== undefined) {
    nonNegative(errs, "spec.progressDeadlineSeconds", deadline);
    if (deadline <= (spec.minReadySeconds ?? 0)) errs.invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds");
  }
  if (old) selectorImmutable(errs, spec, old.spec ?? {});
}

export function validateReplicaSet(errs: Errs, o: Obj, old?: Obj) {
  const spec = obj(o.spec, "spec");
  validateReplicated(errs, spec);
  if (old) selectorImmutable(errs, spec, old.spec ?? {});
}

function validateDaemonSetStrategy(errs: Errs, strategy: Obj) {
  const type = str(strategy.type, "spec.updateStrategy.type") || "RollingUpdate";
  if (type === "OnDelete") return;
  if (type !== "RollingUpdate") {
    return errs.notSupported("spec.updateStrategy", new Printed(`apps.DaemonSetUpdateStrategy{Type:${JSON.stringify(type)}, RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}`), ["RollingUpdate", "OnDelete"]);
  }
  const maxUnavailable = orDefault(obj(strategy.rollingUpdate, "spec.updateStrategy.rollingUpdate").maxUnavailable);
  const path = "spec.updateStrategy.rollingUpdate.maxUnavailable";
  positiveIntOrPercent(errs, path, maxUnavailable);
  if (intOrPercentValue(maxUnavailable) === 0) errs.invalid(path, goIntOrString(maxUnavailable), "cannot be 0");
  notMoreThan100Percent(errs, path, maxUnavailable);
}

export function validateDaemonSet(errs: Errs, o: Obj, old?: Obj) {
  const spec = obj(o.spec, "spec");
  const template = obj(spec.template, "spec.template");
  validateSelector(errs, spec, { empty: "empty selector is invalid for daemonset", daemonSet: true });
  checkTemplateLabels(errs, spec.selector, template);
  validateAlwaysTemplate(errs, template, "DaemonSet");
  nonNegative(errs, "spec.minReadySeconds", spec.minReadySeconds);
  nonNegative(errs, "spec.templateGeneration", spec.templateGeneration);
  validateDaemonSetStrategy(errs, obj(spec.updateStrategy, "spec.updateStrategy"));
  nonNegative(errs, "spec.revisionHistoryLimit", spec.revisionHistoryLimit);
  if (old) selectorImmutable(errs, spec, old.spec ?? {});
}

/** Fields of a StatefulSet's spec that an update may change (v1.21). */
const STATEFULSET_UPDATABLE = ["replicas", "template", "updateStrategy"];

/** Upstream v1.21 checks only the labels, annotations, restart policy and deadline of a StatefulSet's template. */
export function validateStatefulSet(errs: Errs, o: Obj, old?: Obj) {
  const spec = obj(o.spec, "spec");
  const policy = str(spec.podManagementPolicy, "spec.podManagementPolicy");
  if (policy && policy !== "OrderedReady" && policy !== "Parallel") errs.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'");
  const strategy = obj(spec.updateStrategy, "spec.updateStrategy");
  const type = str(strategy.type, "spec.updateStrategy.type") || "RollingUpdate";
  if (type === "OnDelete") {
    if (strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null) errs.invalid("spec.updateStrategy.rollingUpdate", strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'");
  } else if (type === "RollingUpdate") nonNegative(errs, "spec.updateStrategy.rollingUpdate.partition", obj(strategy.rollingUpdate, "spec.updateStrategy.rollingUpdate").partition);
  else errs.invalid("spec.updateStrategy", strategy, "must be 'RollingUpdate' or 'OnDelete'");
  nonNegative(errs, "spec.replicas", spec.replicas);
  if (validateSelector(errs, spec, { empty: "empty selector is not valid for statefulset.", unparsable: "" })) {
    const template = obj(spec.template, "spec.template");
    checkTemplateLabels(errs, spec.selector, template);
    validateTemplateMeta(errs, template, "spec.template");
  }
  const podSpec = obj(obj(spec.template, "spec.template").spec, "spec.template.spec");
  if (restartPolicy(podSpec) !== "Always") errs.notSupported("spec.template.spec.restartPolicy", restartPolicy(podSpec), ["Always"]);
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) errs.invalid("spec.template.spec.activeDeadlineSeconds", podSpec.activeDeadlineSeconds, "must not be specified");
  if (old) {
    const fixed = (s: Obj) => Object.fromEntries(Object.entries(s ?? {}).filter(([k]) => !STATEFULSET_UPDATABLE.includes(k)));
    if (!Bun.deepEquals(fixed(spec), fixed(old.spec))) errs.forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden");
  }
}
