// Small cluster-policy kinds: PodDisruptionBudget, PriorityClass, RuntimeClass, Lease, HorizontalPodAutoscaler.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { NEGATIVE, dns1123Label, each, empty, has, immutable, isMap, labelSelector, pathSegmentName, quantity, run } from "./rules.ts";

/** %#v of an IntOrString, as upstream prints a bad one. */
const showIntOrString = (v: unknown) =>
  typeof v === "number" ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}` : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`;

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function intOrPercent(e: Errs, field: string, v: unknown) {
  const bad = (msg: string) => e.causes.push({ field, reason: "FieldValueInvalid", message: `Invalid value: ${showIntOrString(v)}: ${msg}` });
  if (typeof v === "string") {
    if (!/^[0-9]+%$/.test(v)) bad("a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
    else if (Number(v.slice(0, -1)) > 100) bad("must not be greater than 100%");
  } else if (typeof v === "number" && v < 0) e.invalid(field, v, NEGATIVE);
}

export const podDisruptionBudget = (o: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  if (has(sp.minAvailable) && has(sp.maxUnavailable)) e.invalid("spec", sp, "minAvailable and maxUnavailable cannot be both set");
  if (has(sp.minAvailable)) intOrPercent(e, "spec.minAvailable", sp.minAvailable);
  if (has(sp.maxUnavailable)) intOrPercent(e, "spec.maxUnavailable", sp.maxUnavailable);
  labelSelector(e, "spec.selector", sp.selector);
});

const HIGHEST_USER_PRIORITY = 1_000_000_000;
const SYSTEM_CLASSES: Record<string, number> = { "system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000 };

function systemClass(name: string, value: unknown, globalDefault: unknown): string | null {
  if (!(name in SYSTEM_CLASSES)) return `${name} is not a known system priority class`;
  if (value !== SYSTEM_CLASSES[name]) return `value of ${name} PriorityClass must be ${SYSTEM_CLASSES[name]}`;
  if (globalDefault === true) return `globalDefault of ${name} PriorityClass must be false`;
  return null;
}

export const priorityClass = (o: Obj, old?: Obj) => run((e) => {
  const name = String(o.metadata?.name ?? "");
  if (name.startsWith("system-")) {
    const err = systemClass(name, o.value, o.globalDefault);
    if (err) e.forbidden("metadata.name", `priority class names with 'system-' prefix are reserved for system use only. error: ${err}`);
  } else if (typeof o.value === "number" && o.value > HIGHEST_USER_PRIORITY) {
    e.forbidden("value", `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`);
  }
  if (has(o.preemptionPolicy)) {
    if (o.preemptionPolicy === "") e.required("preemptionPolicy");
    else if (!["PreemptLowerPriority", "Never"].includes(o.preemptionPolicy)) e.notSupported("preemptionPolicy", o.preemptionPolicy, ["PreemptLowerPriority", "Never"]);
  }
  if (!old) return;
  if ((o.value ?? 0) !== (old.value ?? 0)) e.forbidden("value", "may not be changed in an update.");
  immutable(e, "preemptionPolicy", o.preemptionPolicy, old.preemptionPolicy);
});

export const runtimeClass = (o: Obj, old?: Obj) => run((e) => {
  const handler = String(o.handler ?? "");
  each(e, "handler", handler, dns1123Label(handler));
  for (const [k, v] of Object.entries(isMap(o.overhead?.podFixed) ? o.overhead.podFixed : {})) quantity(e, `overhead.podFixed[${k}]`, v);
  if (old) immutable(e, "handler", o.handler, old.handler);
});

export const lease = (o: Obj) => run((e) => {
  const d = o.spec?.leaseDurationSeconds, t = o.spec?.leaseTransitions;
  if (typeof d === "number" && d <= 0) e.invalid("spec.leaseDurationSeconds", d, "must be greater than 0");
  if (typeof t === "number" && t < 0) e.invalid("spec.leaseTransitions", t, NEGATIVE);
});

/** autoscaling/v1: the bounds, the target reference, and the CPU target (upstream's metrics[0] once converted). */
export const horizontalPodAutoscaler = (o: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  const min = sp.minReplicas, max = sp.maxReplicas ?? 0;
  if (typeof min === "number" && min < 1) e.invalid("spec.minReplicas", min, "must be greater than or equal to 1");
  if (max < 1) e.invalid("spec.maxReplicas", max, "must be greater than 0");
  if (typeof min === "number" && max < min) e.invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`");
  for (const f of ["kind", "name"]) {
    const v = sp.scaleTargetRef?.[f];
    if (empty(v)) e.required(`spec.scaleTargetRef.${f}`);
    else each(e, `spec.scaleTargetRef.${f}`, v, pathSegmentName(String(v)));
  }
  const cpu = sp.targetCPUUtilizationPercentage;
  if (typeof cpu === "number" && cpu < 1) e.invalid("spec.metrics[0].resource.target.averageUtilization", cpu, "must be greater than 0");
});
