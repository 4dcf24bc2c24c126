// Rules shared by the workloads that run pods from a template under a selector.
import type { Obj } from "../registry/types.ts";
import { goStringMap, Printed, type Errs } from "./field.ts";
import { obj } from "./decode.ts";
import { restartPolicy, validatePodTemplateSpec } from "./podspec.ts";
import { goSelector, isEmptySelector, labelSelector, selects } from "./labels.ts";

/** How a kind words its selector faults; a DaemonSet may omit its selector and never reports it unparsable. */
export interface SelectorRules { empty: string; unparsable?: string; daemonSet?: boolean }

/**
 * spec.selector of an apps kind: required, valid and not empty; returns whether it can be turned into a
 * selector (when it cannot, upstream checks the template no further).
 */
export function validateSelector(errs: Errs, spec: Obj, rules: SelectorRules): boolean {
  const sel = spec.selector === undefined || spec.selector === null ? undefined : obj(spec.selector, "spec.selector");
  if (!sel) {
    if (!rules.daemonSet) errs.required("spec.selector");
    return true;
  }
  labelSelector(errs, "spec.selector", sel);
  if (isEmptySelector(sel)) errs.invalid("spec.selector", new Printed(goSelector(sel)), rules.empty);
  if (selects(sel, {}) === undefined) {
    if (!rules.daemonSet) errs.invalid("spec.selector", new Printed(goSelector(sel)), rules.unparsable ?? "invalid label selector");
    return false;
  }
  return true;
}

/** The template's labels must be selected by the selector: a missing one selects nothing, an empty one all. */
export function checkTemplateLabels(errs: Errs, sel: Obj | undefined, template: Obj, path = "spec.template") {
  if (sel && isEmptySelector(sel)) return;
  const labels = template.metadata?.labels;
  if (selects(sel, labels) === false) errs.invalid(`${path}.metadata.labels`, new Printed(goStringMap(labels)), "`selector` does not match template `labels`");
}

/**
 * The template of a ReplicaSet, Deployment, DaemonSet or ReplicationController: a valid pod template whose
 * pods restart Always and run without a deadline. `kind` names the workload in upstream's message.
 */
export function validateAlwaysTemplate(errs: Errs, template: Obj, kind: string, path = "spec.template") {
  validatePodTemplateSpec(errs, template, path);
  const spec = template.spec ?? {};
  if (restartPolicy(spec) !== "Always") errs.notSupported(`${path}.spec.restartPolicy`, restartPolicy(spec), ["Always"]);
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    errs.invalid(`${path}.spec.activeDeadlineSeconds`, spec.activeDeadlineSeconds, `activeDeadlineSeconds in ${kind} is not Supported`);
  }
}

/** apps/v1 selectors never change once set. */
export function selectorImmutable(errs: Errs, spec: Obj, old: Obj) {
  if (!Bun.deepEquals(spec.selector ?? null, old.selector ?? null)) errs.immutable("spec.selector", new Printed(goSelector(spec.selector)));
}
