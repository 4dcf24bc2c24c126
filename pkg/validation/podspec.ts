// A pod spec, a pod template, and what a pod update may change.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { int, list, obj, str } from "./decode.ts";
import { validateContainers } from "./container.ts";
import { annotationKeys, labels, labelValue } from "./labels.ts";
import { dns1123Label, dns1123Subdomain, qualifiedName } from "./names.ts";
import { TAINT_EFFECTS } from "./namespace-node.ts";
import { validateVolumes } from "./pod-volumes.ts";
import { validatePodDNS } from "./pod-dns.ts";
import { validatePodSecurityContext } from "./pod-security.ts";
import { validateAffinity, validateTopologySpread } from "./scheduling.ts";

export const RESTART_POLICIES = ["Always", "OnFailure", "Never"];
const MAX_INT32 = 2147483647;

/** A pod's restart policy after defaulting (an absent one is Always). */
export const restartPolicy = (spec: Obj | undefined): string => spec?.restartPolicy || "Always";

function validateTolerations(errs: Errs, tolerations: unknown, path: string) {
  errs.each<Obj>(path, list(tolerations, path), (t, p) => {
    const key = str(t?.key, `${p}.key`) ?? "";
    const operator = str(t?.operator, `${p}.operator`) ?? "";
    const value = str(t?.value, `${p}.value`) ?? "";
    const effect = str(t?.effect, `${p}.effect`) ?? "";
    if (key) errs.invalidEach(`${p}.key`, key, qualifiedName(key));
    if (!key && operator !== "Exists") errs.invalid(`${p}.operator`, operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\"");
    if (int(t?.tolerationSeconds, `${p}.tolerationSeconds`) !== undefined && effect !== "NoExecute") errs.invalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set");
    if (operator === "Equal" || operator === "") {
      const bad = labelValue(value);
      if (bad.length) errs.invalid(`${p}.operator`, value, bad.join(";"));
    } else if (operator === "Exists") {
      if (value) errs.invalid(`${p}.operator`, t, "value must be empty when `operator` is 'Exists'");
    } else errs.notSupported(`${p}.operator`, operator, ["Equal", "Exists"]);
    if (effect && !TAINT_EFFECTS.includes(effect)) errs.notSupported(`${p}.effect`, effect, TAINT_EFFECTS);
  });
}

/** Names in the spec that must be DNS names of one rule or the other. */
const NAMED: [string, (v: string) => string[]][] = [
  ["serviceAccountName", dns1123Subdomain], ["nodeName", dns1123Subdomain], ["priorityClassName", dns1123Subdomain],
  ["hostname", dns1123Label], ["subdomain", dns1123Label],
];

export function validatePodSpec(errs: Errs, spec: Obj, path: string) {
  const volumes = validateVolumes(errs, spec.volumes, `${path}.volumes`);
  validateContainers(errs, spec, path, volumes);
  const restart = str(spec.restartPolicy, `${path}.restartPolicy`);
  if (restart && !RESTART_POLICIES.includes(restart)) errs.notSupported(`${path}.restartPolicy`, restart, RESTART_POLICIES);
  validatePodDNS(errs, spec, path);
  validatePodSecurityContext(errs, spec, path);
  validateAffinity(errs, spec.affinity, `${path}.affinity`);
  validateTopologySpread(errs, spec.topologySpreadConstraints, `${path}.topologySpreadConstraints`);
  labels(errs, `${path}.nodeSelector`, obj(spec.nodeSelector, `${path}.nodeSelector`));
  for (const [field, check] of NAMED) {
    const name = str(spec[field], `${path}.${field}`);
    if (name) errs.invalidEach(`${path}.${field}`, name, check(name));
  }
  const deadline = int(spec.activeDeadlineSeconds, `${path}.activeDeadlineSeconds`);
  if (deadline !== undefined && (deadline < 1 || deadline > MAX_INT32)) errs.invalid(`${path}.activeDeadlineSeconds`, deadline, `must be between 1 and ${MAX_INT32}, inclusive`);
  validateTolerations(errs, spec.tolerations, `${path}.tolerations`);
}

/** A template's labels and annotation keys; upstream reports them at `template.labels` (not `template.metadata.labels`). */
export function validateTemplateMeta(errs: Errs, template: Obj, path: string) {
  const meta = obj(template.metadata, `${path}.metadata`);
  labels(errs, `${path}.labels`, obj(meta.labels, `${path}.labels`));
  annotationKeys(errs, `${path}.annotations`, obj(meta.annotations, `${path}.annotations`));
}

/** A workload's pod template. */
export function validatePodTemplateSpec(errs: Errs, template: Obj, path: string) {
  validateTemplateMeta(errs, template, path);
  validatePodSpec(errs, obj(template.spec, `${path}.spec`), `${path}.spec`);
}

const NOT_UPDATABLE = "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)";

/** A pod's spec is fixed once created, but for images, a shorter deadline and added tolerations. */
export function validatePodUpdate(errs: Errs, spec: Obj, old: Obj) {
  for (const f of ["containers", "initContainers"]) {
    const now = list(spec[f], `spec.${f}`), before = list(old[f], `spec.${f}`);
    if (now.length !== before.length) return errs.forbidden(`spec.${f}`, "pod updates may not add or remove containers");
    now.forEach((c, i) => {
      const image = String(c?.image ?? "");
      if (!image) errs.required(`spec.${f}[${i}].image`);
      else if (image.trim() !== image) errs.invalid(`spec.${f}[${i}].image`, image, "must not have leading or trailing whitespace");
    });
  }
  const deadline = int(spec.activeDeadlineSeconds, "spec.activeDeadlineSeconds");
  const oldDeadline = old.activeDeadlineSeconds as number | undefined;
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > MAX_INT32) return errs.invalid("spec.activeDeadlineSeconds", deadline, `must be between 0 and ${MAX_INT32}, inclusive`);
    if (oldDeadline !== undefined && oldDeadline !== null && deadline > oldDeadline) return errs.invalid("spec.activeDeadlineSeconds", deadline, "must be less than or equal to previous value");
  } else if (oldDeadline !== undefined && oldDeadline !== null) errs.invalid("spec.activeDeadlineSeconds", null, "must not update from a positive integer to nil value");
  const tolerations = list(spec.tolerations, "spec.tolerations");
  const sameToleration = (a: Obj, b: Obj) => Bun.deepEquals({ ...a, tolerationSeconds: undefined }, { ...b, tolerationSeconds: undefined });
  if (list<Obj>(old.tolerations, "").some((t) => !tolerations.some((n) => sameToleration(n, t)))) {
    errs.forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds");
  }
  // What else differs once the updatable fields are taken from the new spec is refused.
  const munged: Obj = { ...old, activeDeadlineSeconds: spec.activeDeadlineSeconds, tolerations: spec.tolerations };
  for (const f of ["containers", "initContainers"]) {
    if (Array.isArray(old[f]) && Array.isArray(spec[f])) munged[f] = old[f].map((c: Obj, i: number) => ({ ...c, image: spec[f][i]?.image }));
  }
  for (const k of Object.keys(munged)) if (munged[k] === undefined) delete munged[k];
  if (!Bun.deepEquals(munged, spec)) errs.forbidden("spec", NOT_UPDATABLE);
}
