// A HorizontalPodAutoscaler's defaults at the version it was written in, as each of upstream's versions
// defaults it: minReplicas everywhere; v2beta1 and v2beta2, which have no implicit CPU target, get 80 %
// CPU utilization when they name no metric (v1 leaves it unset: its controller assumes 80 %).
import type { Obj } from "../registry/types.ts";
import { child, fill } from "./fill.ts";

const CPU_UTILIZATION = 80;

/** The default metric per version; v1 has none. */
const DEFAULT_METRIC: Record<string, Obj> = {
  "autoscaling/v2beta1": { type: "Resource", resource: { name: "cpu", targetAverageUtilization: CPU_UTILIZATION } },
  "autoscaling/v2beta2": { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: CPU_UTILIZATION } } },
};

export function defaultHorizontalPodAutoscaler(hpa: Obj) {
  const spec = child(hpa, "spec");
  fill(spec, { minReplicas: 1 });
  const metric = DEFAULT_METRIC[String(hpa.apiVersion)];
  if (metric && !(Array.isArray(spec.metrics) && spec.metrics.length)) spec.metrics = [structuredClone(metric)];
}
