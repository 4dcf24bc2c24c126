// autoscaling/v2beta1 and v2beta2 HorizontalPodAutoscaler over autoscaling/v1, as upstream converts
// them: v1 keeps one CPU target, and what it lacks rides in annotations — the other metrics, the
// current metrics and the conditions (in v2beta1's metric form, as upstream writes them), and
// v2beta2's behavior. Reading at v2 takes them out of the annotations again.
import type { Obj } from "../../registry/types.ts";
import type { VersionRow } from "../table.ts";
import { isMap } from "../../util/ismap.ts";

const METRICS = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior";
/** autoscaling/v1 formerly had an implicit default applied in the controller: 80% CPU. */
const DEFAULT_CPU = 80;

const isCpuUtilization = (m: Obj) => m.type === "Resource" && m.resource?.name === "cpu" && m.resource.targetAverageUtilization != null;
const defined = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const nonEmpty = (o: Obj | undefined) => (o && Object.keys(o).length ? o : undefined);

function parseAnnotation(annotations: Obj, key: string): any[] | undefined {
  const text = annotations[key];
  if (text === undefined) return undefined;
  try { return JSON.parse(text); } catch { throw new Error(`metadata.annotations[${key}]: not JSON`); }
}

/** v2beta1 (metrics in v1's annotation form) → v1. */
function beta1ToV1(o: Obj, extra: Record<string, unknown> = {}): Obj {
  const { spec = {}, status, metadata = {}, kind } = o;
  const metrics: Obj[] = spec.metrics ?? [];
  const cpu = metrics.find((m) => m.type === "Resource" && m.resource?.name === "cpu");
  const others = metrics.filter((m) => !isCpuUtilization(m));
  const annotations: Obj = { ...(metadata.annotations ?? {}) };
  const put = (key: string, v: unknown) => { if (v !== undefined) annotations[key] = JSON.stringify(v); };
  if (others.length) put(METRICS, others);
  if (status?.currentMetrics?.length) put(CURRENT, status.currentMetrics);
  if (status?.conditions?.length) put(CONDITIONS, status.conditions);
  for (const [k, v] of Object.entries(extra)) put(k, v);
  const currentCpu = (status?.currentMetrics ?? []).find((m: Obj) => m.type === "Resource" && m.resource?.name === "cpu")?.resource?.currentAverageUtilization;
  return {
    kind, apiVersion: "autoscaling/v1",
    metadata: defined({ ...metadata, annotations: nonEmpty(annotations) }),
    spec: defined({ scaleTargetRef: spec.scaleTargetRef, minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas, targetCPUUtilizationPercentage: cpu?.resource?.targetAverageUtilization }),
    ...(status ? {
      status: defined({
        observedGeneration: status.observedGeneration, lastScaleTime: status.lastScaleTime, currentReplicas: status.currentReplicas,
        desiredReplicas: status.desiredReplicas, currentCPUUtilizationPercentage: currentCpu,
      }),
    } : {}),
  };
}

/** v1 → v2beta1 (metrics in v1's annotation form); `keep` names annotations left in place. */
function v1ToBeta1(o: Obj, apiVersion: string, take: string[] = []): { obj: Obj; taken: Record<string, any> } {
  const { spec = {}, status, metadata = {}, kind } = o;
  const annotations: Obj = { ...(metadata.annotations ?? {}) };
  const others = parseAnnotation(annotations, METRICS) ?? [];
  const current = parseAnnotation(annotations, CURRENT);
  const conditions = parseAnnotation(annotations, CONDITIONS);
  const taken: Record<string, any> = {};
  for (const k of take) if (annotations[k] !== undefined) taken[k] = parseAnnotation(annotations, k);
  for (const k of [METRICS, CURRENT, CONDITIONS, ...take]) delete annotations[k];
  const cpu = spec.targetCPUUtilizationPercentage;
  // Upstream puts the annotation's metrics first and v1's CPU target after them.
  let metrics = [...others, ...(cpu != null ? [{ type: "Resource", resource: { name: "cpu", targetAverageUtilization: cpu } }] : [])];
  if (!metrics.length) metrics = [{ type: "Resource", resource: { name: "cpu", targetAverageUtilization: DEFAULT_CPU } }];
  const currentCpu = status?.currentCPUUtilizationPercentage;
  const obj: Obj = {
    kind, apiVersion,
    metadata: defined({ ...metadata, annotations: nonEmpty(annotations) }),
    spec: defined({ scaleTargetRef: spec.scaleTargetRef, minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas, metrics }),
  };
  if (status) {
    obj.status = defined({
      observedGeneration: status.observedGeneration, lastScaleTime: status.lastScaleTime, currentReplicas: status.currentReplicas,
      desiredReplicas: status.desiredReplicas,
      currentMetrics: current ?? (currentCpu != null ? [{ type: "Resource", resource: { name: "cpu", currentAverageUtilization: currentCpu } }] : undefined),
      conditions,
    });
  }
  return { obj, taken };
}

// ---- v2beta2's metric form ↔ v2beta1's, source by source (upstream's per-type conversions)
const target = (value: unknown, averageValue: unknown, averageUtilization: unknown, type: string) => defined({ type, value, averageValue, averageUtilization });
const metric = (name: unknown, selector: unknown) => defined({ name, selector });

const SPEC_TO_BETA2: Record<string, (s: Obj) => Obj> = {
  Resource: (s) => ({ name: s.name, target: target(undefined, s.targetAverageValue, s.targetAverageUtilization, s.targetAverageUtilization != null ? "Utilization" : "AverageValue") }),
  ContainerResource: (s) => ({ name: s.name, container: s.container, target: target(undefined, s.targetAverageValue, s.targetAverageUtilization, s.targetAverageUtilization != null ? "Utilization" : "AverageValue") }),
  Pods: (s) => ({ metric: metric(s.metricName, s.selector), target: target(undefined, s.targetAverageValue, undefined, "AverageValue") }),
  Object: (s) => ({ describedObject: s.target, metric: metric(s.metricName, s.selector), target: target(s.averageValue != null ? undefined : s.targetValue, s.averageValue, undefined, s.averageValue != null ? "AverageValue" : "Value") }),
  External: (s) => ({ metric: metric(s.metricName, s.metricSelector), target: target(s.targetValue, s.targetAverageValue, undefined, s.targetValue != null ? "Value" : "AverageValue") }),
};
const SPEC_TO_BETA1: Record<string, (s: Obj) => Obj> = {
  Resource: (s) => defined({ name: s.name, targetAverageUtilization: s.target?.averageUtilization, targetAverageValue: s.target?.averageValue }),
  ContainerResource: (s) => defined({ name: s.name, container: s.container, targetAverageUtilization: s.target?.averageUtilization, targetAverageValue: s.target?.averageValue }),
  // Keys in v1's field order: the annotation's JSON reads as upstream writes it.
  Pods: (s) => defined({ metricName: s.metric?.name, targetAverageValue: s.target?.averageValue, selector: s.metric?.selector }),
  Object: (s) => defined({ target: s.describedObject, metricName: s.metric?.name, targetValue: s.target?.value, selector: s.metric?.selector, averageValue: s.target?.averageValue }),
  External: (s) => defined({ metricName: s.metric?.name, metricSelector: s.metric?.selector, targetValue: s.target?.value, targetAverageValue: s.target?.averageValue }),
};
const current = (value: unknown, averageValue: unknown, averageUtilization: unknown) => defined({ value, averageValue, averageUtilization });
const STATUS_TO_BETA2: Record<string, (s: Obj) => Obj> = {
  Resource: (s) => ({ name: s.name, current: current(undefined, s.currentAverageValue, s.currentAverageUtilization) }),
  ContainerResource: (s) => ({ name: s.name, container: s.container, current: current(undefined, s.currentAverageValue, s.currentAverageUtilization) }),
  Pods: (s) => ({ metric: metric(s.metricName, s.selector), current: current(undefined, s.currentAverageValue, undefined) }),
  Object: (s) => ({ describedObject: s.target, metric: metric(s.metricName, s.selector), current: current(s.currentValue, s.averageValue, undefined) }),
  External: (s) => ({ metric: metric(s.metricName, s.metricSelector), current: current(s.currentValue, s.currentAverageValue, undefined) }),
};
const STATUS_TO_BETA1: Record<string, (s: Obj) => Obj> = {
  Resource: (s) => defined({ name: s.name, currentAverageUtilization: s.current?.averageUtilization, currentAverageValue: s.current?.averageValue }),
  ContainerResource: (s) => defined({ name: s.name, container: s.container, currentAverageUtilization: s.current?.averageUtilization, currentAverageValue: s.current?.averageValue }),
  Pods: (s) => defined({ metricName: s.metric?.name, currentAverageValue: s.current?.averageValue, selector: s.metric?.selector }),
  Object: (s) => defined({ target: s.describedObject, metricName: s.metric?.name, currentValue: s.current?.value, selector: s.metric?.selector, averageValue: s.current?.averageValue }),
  External: (s) => defined({ metricName: s.metric?.name, metricSelector: s.metric?.selector, currentValue: s.current?.value, currentAverageValue: s.current?.averageValue }),
};

/** Each metric's sources (the fields named after the types) through `table`; all present, as upstream converts them. */
const FIELD: Record<string, string> = { Resource: "resource", ContainerResource: "containerResource", Pods: "pods", Object: "object", External: "external" };
const metricsVia = (table: Record<string, (s: Obj) => Obj>, list: Obj[] | undefined) => list?.map((m) => {
  if (!isMap(m)) return m;
  const out: Obj = { ...m };
  for (const [type, f] of Object.entries(FIELD)) if (isMap(m[f])) out[f] = table[type]!(m[f]);
  return out;
});

function withMetrics(o: Obj, specTable: Record<string, (s: Obj) => Obj>, statusTable: Record<string, (s: Obj) => Obj>, apiVersion: string): Obj {
  const out: Obj = { ...o, apiVersion, spec: defined({ ...o.spec, metrics: metricsVia(specTable, o.spec?.metrics) }) };
  if (o.status) out.status = defined({ ...o.status, currentMetrics: metricsVia(statusTable, o.status.currentMetrics) });
  return out;
}

/**
 * An HPA of any served version in upstream's internal (v2beta2) form, converted directly rather than
 * through v1, which cannot carry every shape validation must see (two sources in one metric, a CPU
 * target with both a utilization and a value, an unknown target type).
 */
export function hpaAtV2beta2(o: Obj): Obj {
  if (o.apiVersion === "autoscaling/v2beta2") return o;
  if (o.apiVersion === "autoscaling/v2beta1") return withMetrics(o, SPEC_TO_BETA2, STATUS_TO_BETA2, "autoscaling/v2beta2");
  return v1ToBeta2(o);
}

/** v1 → v2beta2, through v2beta1's metric form (the annotations hold it). */
function v1ToBeta2(o: Obj): Obj {
  const { obj, taken } = v1ToBeta1(o, "autoscaling/v2beta1", [BEHAVIOR]);
  const out = withMetrics(obj, SPEC_TO_BETA2, STATUS_TO_BETA2, "autoscaling/v2beta2");
  if (taken[BEHAVIOR]) out.spec = { ...out.spec, behavior: taken[BEHAVIOR] };
  return out;
}

const hub = { group: "autoscaling", version: "v1" };
const kind = "HorizontalPodAutoscaler";

export const AUTOSCALING_ROWS: VersionRow[] = [
  {
    group: "autoscaling", version: "v2beta1", kind, hub, served: true, statusAnnotations: [CURRENT, CONDITIONS],
    toHub: (o) => beta1ToV1(o),
    fromHub: (o) => v1ToBeta1(o, "autoscaling/v2beta1").obj,
  },
  {
    group: "autoscaling", version: "v2beta2", kind, hub, served: true, statusAnnotations: [CURRENT, CONDITIONS],
    toHub: (o) => {
      const { behavior, ...spec } = o.spec ?? {};
      return beta1ToV1(withMetrics({ ...o, spec }, SPEC_TO_BETA1, STATUS_TO_BETA1, "autoscaling/v2beta1"), behavior ? { [BEHAVIOR]: behavior } : {});
    },
    fromHub: v1ToBeta2,
  },
];
