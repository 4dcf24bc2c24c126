// Small cluster-policy kinds: PodDisruptionBudget, PriorityClass, RuntimeClass, Lease, HorizontalPodAutoscaler.
import type { Obj } from "../registry/types.ts";
import { has, immutable, isMap, run } from "./rules.ts";
import { dns1123Label } from "./names.ts";
import { hpaMetricsAndBehavior, reference } from "./hpa-metrics.ts";
import { labelSelector } from "./labels.ts";
import { nonNegative, notMoreThan100Percent, positiveIntOrPercent } from "./numbers.ts";
import { nonNegativeQuantity } from "./quantity.ts";

export const podDisruptionBudget = (o: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  if (has(sp.minAvailable) && has(sp.maxUnavailable)) e.invalid("spec", sp, "minAvailable and maxUnavailable cannot be both set");
  for (const f of ["minAvailable", "maxUnavailable"]) {
    if (!has(sp[f])) continue;
    positiveIntOrPercent(e, `spec.${f}`, sp[f]);
    notMoreThan100Percent(e, `spec.${f}`, sp[f]);
  }
  labelSelector(e, "spec.selector", sp.selector);
});

const HIGHEST_USER_PRIORITY = 1_000_000_000;
/** The PriorityClasses every cluster has (pkg/server/bootstrap makes them), by name, with their values. */
export const SYSTEM_CLASSES: Record<string, number> = { "system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000 };

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
  e.invalidEach("handler", handler, dns1123Label(handler));
  for (const [k, v] of Object.entries(isMap(o.overhead?.podFixed) ? o.overhead.podFixed : {})) nonNegativeQuantity(e, `overhead.podFixed[${k}]`, v);
  if (old) immutable(e, "handler", o.handler, old.handler);
});

export const lease = (o: Obj) => run((e) => {
  const d = o.spec?.leaseDurationSeconds, t = o.spec?.leaseTransitions;
  if (typeof d === "number" && d <= 0) e.invalid("spec.leaseDurationSeconds", d, "must be greater than 0");
  nonNegative(e, "spec.leaseTransitions", t);
});

/**
 * The bounds and the target reference (the same at every version), then the metrics and behavior
 * (./hpa-metrics.ts) of the object as the request wrote it.
 */
export const horizontalPodAutoscaler = (o: Obj, _old?: Obj, _version?: string, sent: Obj = o) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  const min = sp.minReplicas, max = sp.maxReplicas ?? 0;
  if (typeof min === "number" && min < 1) e.invalid("spec.minReplicas", min, "must be greater than or equal to 1");
  if (max < 1) e.invalid("spec.maxReplicas", max, "must be greater than 0");
  if (typeof min === "number" && max < min) e.invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`");
  const before = e.causes.length;
  reference(e, "spec.scaleTargetRef", sp.scaleTargetRef ?? {});
  // the metrics are looked at only once the target reference is sound
  if (e.causes.length > before) return;
  hpaMetricsAndBehavior(e, sent);
});
