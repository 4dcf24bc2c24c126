// A HorizontalPodAutoscaler's metrics and behavior, as upstream validates its internal (v2beta2-shaped)
// object. The checks read the object as the request wrote it, converted directly to v2beta2 (not
// through the stored autoscaling/v1, which cannot carry every invalid shape), so the paths are
// upstream's whatever version the client wrote (v1's CPU target comes after its annotation's
// metrics, as upstream's conversion puts it).
import { hpaAtV2beta2 } from "../convert/rows/autoscaling.ts";
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { pathSegmentName } from "./names.ts";
import { quantity, quantityText } from "./quantity.ts";
import { has, isMap, list } from "./rules.ts";

const SOURCE_TYPES = ["External", "Object", "Pods", "Resource"];
const SOURCE_TYPES_LISTED = [...SOURCE_TYPES, "ContainerResource"].sort();
const TARGET_TYPES = ["Utilization", "Value", "AverageValue"];
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

/** The spec's metrics and behavior in upstream's internal form (the object at any served version). */
export function hpaMetricsAndBehavior(e: Errs, sent: Obj) {
  let spec: Obj;
  try { spec = hpaAtV2beta2(sent).spec ?? {}; } catch { return; }
  // ContainerResource sources need the HPAContainerMetrics gate, off in v1.21: upstream drops them first
  list(spec.metrics).forEach((m, i) => metric(e, `spec.metrics[${i}]`, isMap(m) ? m : {}));
  behavior(e, "spec.behavior", spec.behavior);
}

/** Which field holds each source type's details. */
const FIELD: Record<string, string> = { Object: "object", Pods: "pods", Resource: "resource", External: "external", ContainerResource: "containerResource" };

const SOURCES: Record<string, (e: Errs, p: string, s: Obj) => void> = {
  object: (e, p, s) => {
    reference(e, `${p}.describedObject`, s.describedObject ?? {});
    identifier(e, `${p}.metric`, s.metric ?? {});
    const t = target(e, `${p}.target`, s.target);
    if (!has(t.value) && !has(t.averageValue)) e.required(`${p}.target.averageValue`, "must set either a target value or averageValue");
  },
  external: (e, p, s) => {
    identifier(e, `${p}.metric`, s.metric ?? {});
    const t = target(e, `${p}.target`, s.target);
    if (!has(t.value) && !has(t.averageValue)) e.required(`${p}.target.averageValue`, "must set either a target value for metric or a per-pod target");
    if (has(t.value) && has(t.averageValue)) e.forbidden(`${p}.target.value`, "may not set both a target value for metric and a per-pod target");
  },
  pods: (e, p, s) => {
    identifier(e, `${p}.metric`, s.metric ?? {});
    const t = target(e, `${p}.target`, s.target);
    if (!has(t.averageValue)) e.required(`${p}.target.averageValue`, "must specify a positive target averageValue");
  },
  resource: (e, p, s) => {
    if (!s.name) e.required(`${p}.name`, "must specify a resource name");
    const t = target(e, `${p}.target`, s.target);
    if (!has(t.averageUtilization) && !has(t.averageValue)) e.required(`${p}.target.averageUtilization`, "must set either a target raw value or a target utilization");
    if (has(t.averageUtilization) && has(t.averageValue)) e.forbidden(`${p}.target.averageValue`, "may not set both a target raw value and a target utilization");
  },
};

function metric(e: Errs, p: string, m: Obj) {
  const type = String(m.type ?? "");
  if (!type) e.required(`${p}.type`, "must specify a metric source type");
  // the first source present is checked; any other is reported below
  const present = Object.keys(SOURCES).filter((f) => isMap(m[f]));
  if (present.length) SOURCES[present[0]!]!(e, `${p}.${present[0]}`, m[present[0]!]);
  const expected = FIELD[type];
  if (type === "ContainerResource") {
    e.required(`${p}.containerResource`, "must populate information for the given metric source (only allowed when HPAContainerMetrics feature is enabled)");
  } else if (expected) {
    if (!present.includes(expected)) e.required(`${p}.${expected}`, "must populate information for the given metric source");
  } else {
    // upstream reports an unknown type twice: once in the type check, once in the switch over types
    e.notSupported(`${p}.type`, type, SOURCE_TYPES_LISTED);
    e.notSupported(`${p}.type`, type, SOURCE_TYPES_LISTED);
  }
  if (present.length > 1) for (const f of present.filter((x) => x !== expected)) e.forbidden(`${p}.${f}`, "must populate the given metric source only");
}

function target(e: Errs, p: string, raw: unknown): Obj {
  const t: Obj = isMap(raw) ? raw : {};
  if (!t.type) e.required(`${p}.type`, "must specify a metric target type");
  if (!TARGET_TYPES.includes(t.type)) e.invalid(`${p}.type`, t.type ?? "", "must be either Utilization, Value, or AverageValue");
  for (const f of ["value", "averageValue"]) {
    if (has(t[f]) && !(quantity(t[f]) > 0)) e.invalid(`${p}.${f}`, quantityText(t[f]), "must be positive");
  }
  if (has(t.averageUtilization) && t.averageUtilization < 1) e.invalid(`${p}.averageUtilization`, t.averageUtilization, "must be greater than 0");
  return t;
}

function identifier(e: Errs, p: string, id: Obj) {
  if (!id.name) e.required(`${p}.name`, "must specify a metric name");
  else e.invalidEach(`${p}.name`, id.name, pathSegmentName(String(id.name)));
}

/** ValidateCrossVersionObjectReference. */
export function reference(e: Errs, p: string, ref: Obj) {
  for (const f of ["kind", "name"]) {
    const v = ref?.[f];
    if (!v) e.required(`${p}.${f}`);
    else e.invalidEach(`${p}.${f}`, v, pathSegmentName(String(v)));
  }
}

function behavior(e: Errs, p: string, b: unknown) {
  if (!isMap(b)) return;
  for (const dir of ["scaleUp", "scaleDown"]) {
    const r = b[dir];
    if (!isMap(r)) continue;
    const rp = `${p}.${dir}`;
    const w = r.stabilizationWindowSeconds;
    if (typeof w === "number" && w < 0) e.invalid(`${rp}.stabilizationWindowSeconds`, w, "must be greater than or equal to zero");
    if (typeof w === "number" && w > MAX_STABILIZATION_WINDOW_SECONDS) e.invalid(`${rp}.stabilizationWindowSeconds`, w, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`);
    if (has(r.selectPolicy) && !["Disabled", "Max", "Min"].includes(r.selectPolicy)) e.notSupported(`${rp}.selectPolicy`, r.selectPolicy, ["Disabled", "Max", "Min"]);
    // upstream's v2beta2 defaults fill empty policies before validation: only given ones are checked
    list(r.policies).forEach((pol: Obj, i) => {
      const pp = `${rp}.policies[${i}]`;
      if (!["Pods", "Percent"].includes(pol?.type)) e.notSupported(`${pp}.type`, pol?.type ?? "", ["Percent", "Pods"]);
      if (!((pol?.value ?? 0) > 0)) e.invalid(`${pp}.value`, pol?.value ?? 0, "must be greater than zero");
      const period = pol?.periodSeconds ?? 0;
      if (!(period > 0)) e.invalid(`${pp}.periodSeconds`, period, "must be greater than zero");
      if (period > MAX_PERIOD_SECONDS) e.invalid(`${pp}.periodSeconds`, period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`);
    });
  }
}
