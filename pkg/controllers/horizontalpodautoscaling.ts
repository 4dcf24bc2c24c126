// The HorizontalPodAutoscaler controller (upstream v1.21's "horizontalpodautoscaling"): every
// --horizontal-pod-autoscaler-sync-period each autoscaling/v1 HPA reads its target's scale subresource and
// its pods' usage from metrics.k8s.io, asks hpa-replicas.ts for a replica count (cpu utilization from
// targetCPUUtilizationPercentage, or the resource metrics of the `autoscaling.alpha.kubernetes.io/metrics`
// annotation that carries v2beta2's), writes the scale, and reports status, conditions (in the annotation
// upstream's v1 uses, written with the status) and events in upstream's words.
import type { Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import type { ResourceRef } from "../client/resources.ts";
import { rfc3339 } from "../client/time.ts";
import { KeyedController, keyOf, splitKey, type ControllerContext, type ControllerInit } from "./framework.ts";
import { type HpaTimings, type PodUsage, Recommendations, limitReplicas, milli, parseQuantity, resourceReplicas } from "./hpa-replicas.ts";

const HPA: ResourceRef = { group: "autoscaling", version: "v1", resource: "horizontalpodautoscalers", kind: "HorizontalPodAutoscaler", namespaced: true };
const POD_METRICS: ResourceRef = { group: "metrics.k8s.io", version: "v1beta1", resource: "pods", kind: "PodMetrics", namespaced: true };
const PODS: ResourceRef = { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true };
export const CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions";
export const METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics";
export const CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics";
/** upstream's default targetCPUUtilizationPercentage when an HPA names no metric. */
const DEFAULT_CPU_UTILIZATION = 80;

export interface HpaOptions extends HpaTimings {
  /** --horizontal-pod-autoscaler-sync-period */
  syncPeriodMs: number;
  /** --horizontal-pod-autoscaler-downscale-stabilization */
  downscaleStabilizationMs: number;
}

/** One resource metric an HPA targets: a utilization of requests, or an average value per pod. */
interface ResourceTarget { resource: string; utilization?: number; averageValue?: number }

/**
 * The targets of a v1 HPA: its targetCPUUtilizationPercentage and the resource metrics of its annotation
 * (v2beta2's others, as v1 carries them); cpu at 80 % when it names none.
 */
export function resourceTargets(hpa: Obj): ResourceTarget[] {
  const text = hpa.metadata.annotations?.[METRICS_ANNOTATION];
  const others: ResourceTarget[] = (text ? JSON.parse(text) as Obj[] : []).filter((m) => m.type === "Resource" && m.resource).map((m) => ({
    resource: m.resource.name,
    utilization: m.resource.targetAverageUtilization,
    averageValue: m.resource.targetAverageValue === undefined ? undefined : m.resource.name === "cpu" ? milli(m.resource.targetAverageValue) : parseQuantity(m.resource.targetAverageValue),
  }));
  const cpu = hpa.spec.targetCPUUtilizationPercentage;
  if (cpu !== undefined) return [{ resource: "cpu", utilization: cpu }, ...others];
  return others.length ? others : [{ resource: "cpu", utilization: DEFAULT_CPU_UTILIZATION }];
}

/** How a metric is named in events and conditions. */
const metricName = (t: ResourceTarget) => (t.utilization !== undefined ? `${t.resource} resource utilization (percentage of request)` : `${t.resource} resource`);

/** The group/version/resource of a scale target, from its apiVersion and kind. */
function targetRef(ref: Obj): ResourceRef {
  const [group, version] = String(ref.apiVersion ?? "").includes("/") ? String(ref.apiVersion).split("/") : ["", ref.apiVersion ?? "v1"];
  const lower = String(ref.kind).toLowerCase();
  return { group, version, resource: lower.endsWith("s") ? `${lower}es` : `${lower}s`, kind: ref.kind, namespaced: true };
}

class Conditions {
  constructor(private readonly list: Obj[]) {}

  /** upstream's setConditionInList: reason and message always, the transition time only on a new status. */
  set(type: string, status: "True" | "False", reason: string, message: string): void {
    const cur = this.list.find((c) => c.type === type);
    const now = rfc3339(new Date());
    if (!cur) this.list.push({ type, status, lastTransitionTime: now, reason, message });
    else Object.assign(cur, { reason, message }, cur.status === status ? {} : { status, lastTransitionTime: now });
  }

  toJSON() { return this.list; }
}

export class HorizontalPodAutoscalerController extends KeyedController {
  private readonly recorder: EventRecorder;
  private readonly recommendations: Recommendations;

  constructor(private readonly ctx: ControllerContext, private readonly o: HpaOptions) {
    super("horizontalpodautoscaling");
    const hpas = ctx.factory.informerFor(HPA);
    this.recorder = ctx.events.newRecorder("horizontal-pod-autoscaler");
    this.recommendations = new Recommendations(o.downscaleStabilizationMs);
    hpas.addEventHandler({
      add: this.enqueue,
      // its own status writes do not count: the next look is a sync period away
      update: (old, cur) => { if (old.metadata.generation !== cur.metadata.generation || old.metadata.annotations?.[METRICS_ANNOTATION] !== cur.metadata.annotations?.[METRICS_ANNOTATION]) this.enqueue(cur); },
      delete: (obj) => this.recommendations.forget(keyOf(obj)),
    });
  }

  protected async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    let hpa: Obj;
    try {
      hpa = await this.ctx.client.get(HPA, name, { namespace });
    } catch (e) {
      if ((e as { code?: number }).code === 404) return this.recommendations.forget(key);
      throw e;
    }
    try {
      await this.reconcile(key, hpa);
    } finally {
      this.queue.addAfter(key, this.o.syncPeriodMs);
    }
  }

  private async reconcile(key: string, hpa: Obj): Promise<void> {
    const client = this.ctx.client, ns: string = hpa.metadata.namespace;
    const ref = hpa.spec.scaleTargetRef ?? {};
    const conditions = new Conditions(JSON.parse(hpa.metadata.annotations?.[CONDITIONS_ANNOTATION] ?? "[]"));
    const scaleRef = targetRef(ref);
    const scalePath = client.path(scaleRef, ns, ref.name, "scale");
    let scale: Obj;
    try {
      scale = await client.transport.json(scalePath, {});
    } catch (e) {
      const msg = `the HPA controller was unable to get the target's current scale: ${(e as Error).message}`;
      this.recorder.event(hpa, undefined, "Warning", "FailedGetScale", "GetScale", (e as Error).message);
      conditions.set("AbleToScale", "False", "FailedGetScale", msg);
      return this.writeStatus(hpa, conditions, hpa.status?.currentReplicas ?? 0, hpa.status?.desiredReplicas ?? 0, undefined, []);
    }
    conditions.set("AbleToScale", "True", "SucceededGetScale", "the HPA controller was able to get the target's current scale");
    const current: number = scale.spec?.replicas ?? 0;
    const min: number = hpa.spec.minReplicas ?? 1, max: number = hpa.spec.maxReplicas;
    let desired = 0, reason = "", utilization: number | undefined, currentMetrics: Obj[] = [];
    if (current === 0 && min !== 0) {
      conditions.set("ScalingActive", "False", "ScalingDisabled", "scaling is disabled since the replica count of the target is zero");
    } else if (current > max) {
      [desired, reason] = [max, "Current number of replicas above Spec.MaxReplicas"];
    } else if (current < min) {
      [desired, reason] = [min, "Current number of replicas below Spec.MinReplicas"];
    } else {
      const proposal = await this.proposal(hpa, scale, current, conditions);
      if (!proposal) return this.writeStatus(hpa, conditions, current, hpa.status?.desiredReplicas ?? current, hpa.status?.currentCPUUtilizationPercentage, hpa.status?.currentMetrics ?? []);
      ({ utilization, currentMetrics } = proposal);
      const stabilized = this.recommendations.stabilize(key, proposal.replicas);
      if (stabilized !== proposal.replicas) conditions.set("AbleToScale", "True", "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation");
      else conditions.set("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size");
      const limited = limitReplicas(current, stabilized, min, max);
      conditions.set("ScalingLimited", limited.replicas === stabilized ? "False" : "True", limited.reason, limited.message);
      desired = limited.replicas;
      reason = desired > current ? `${proposal.metric} above target` : "All metrics below target";
    }
    let scaledAt: string | undefined;
    if (desired !== current && !(current === 0 && min !== 0)) {
      try {
        await client.transport.json(scalePath, { method: "PUT", contentType: "application/json", body: JSON.stringify({ ...scale, spec: { ...scale.spec, replicas: desired } }) });
      } catch (e) {
        this.recorder.event(hpa, undefined, "Warning", "FailedRescale", "Rescale", `New size: ${desired}; reason: ${reason}; error: ${(e as Error).message}`);
        conditions.set("AbleToScale", "False", "FailedUpdateScale", `the HPA controller was unable to update the target scale: ${(e as Error).message}`);
        return this.writeStatus(hpa, conditions, current, hpa.status?.desiredReplicas ?? current, utilization, currentMetrics);
      }
      conditions.set("AbleToScale", "True", "SucceededRescale", `the HPA controller was able to update the target scale to ${desired}`);
      this.recorder.event(hpa, undefined, "Normal", "SuccessfulRescale", "Rescale", `New size: ${desired}; reason: ${reason}`);
      scaledAt = rfc3339(new Date());
    } else desired = current === 0 && min !== 0 ? 0 : current;
    await this.writeStatus(hpa, conditions, current, desired, utilization, currentMetrics, scaledAt);
  }

  /** The largest replica count the metrics ask for (upstream's computeReplicasForMetrics); undefined when none could be computed. */
  private async proposal(hpa: Obj, scale: Obj, current: number, conditions: Conditions) {
    const ns: string = hpa.metadata.namespace, selector: string = scale.status?.selector ?? "";
    if (!selector) {
      this.recorder.event(hpa, undefined, "Warning", "SelectorRequired", "ComputeMetrics", "selector is required");
      conditions.set("ScalingActive", "False", "InvalidSelector", "the HPA target's scale is missing a selector");
      return undefined;
    }
    const targets = resourceTargets(hpa);
    let best: { replicas: number; metric: string; utilization?: number; currentMetrics: Obj[] } | undefined;
    const errors: string[] = [];
    const currentMetrics: Obj[] = [];
    const [metricsList, podList] = await Promise.all([
      this.ctx.client.list(POD_METRICS, { namespace: ns, labelSelector: selector }).catch((e: Error) => e),
      this.ctx.client.list(PODS, { namespace: ns, labelSelector: selector }),
    ]);
    for (const t of targets) {
      try {
        if (metricsList instanceof Error) throw new Error(`unable to get metrics for resource ${t.resource}: unable to fetch metrics from resource metrics API: ${metricsList.message}`);
        const usage = podUsage(metricsList.items ?? [], t.resource);
        const p = t.utilization !== undefined
          ? resourceReplicas(current, t.utilization, t.resource, podList.items ?? [], usage, this.o)
          : averageValueReplicas(current, t.averageValue!, usage, this.o.tolerance);
        const average = t.resource === "cpu" ? `${Math.round(p.rawAverage)}m` : String(Math.round(p.rawAverage));
        currentMetrics.push({ type: "Resource", resource: { name: t.resource, ...(t.utilization !== undefined ? { currentAverageUtilization: p.utilization } : {}), currentAverageValue: average } });
        if (!best || p.replicas > best.replicas) best = { replicas: p.replicas, metric: metricName(t), utilization: t.resource === "cpu" ? p.utilization : undefined, currentMetrics };
      } catch (e) {
        const what = `failed to get ${t.resource} utilization: ${(e as Error).message}`;
        errors.push(what);
        this.recorder.event(hpa, undefined, "Warning", "FailedGetResourceMetric", "ComputeMetrics", what);
        conditions.set("ScalingActive", "False", "FailedGetResourceMetric", `the HPA was unable to compute the replica count: ${what}`);
      }
    }
    if (!best || errors.length === targets.length) {
      const msg = `invalid metrics (${errors.length} invalid out of ${targets.length}), first error is: ${errors[0]}`;
      this.recorder.event(hpa, undefined, "Warning", "FailedComputeMetricsReplicas", "ComputeMetrics", msg);
      return undefined;
    }
    conditions.set("ScalingActive", "True", "ValidMetricFound", `the HPA was able to successfully calculate a replica count from ${best.metric}`);
    return best;
  }

  /**
   * status, and the conditions and current metrics in the annotations v1 carries them in (the server takes
   * those with a status write, as upstream's conversion does), written when they changed.
   */
  private async writeStatus(hpa: Obj, conditions: Conditions, current: number, desired: number, utilization: number | undefined, currentMetrics: Obj[], scaledAt?: string) {
    const annotations = { ...(hpa.metadata.annotations ?? {}), [CONDITIONS_ANNOTATION]: JSON.stringify(conditions), [CURRENT_METRICS_ANNOTATION]: JSON.stringify(currentMetrics) };
    const status: Obj = {
      observedGeneration: hpa.metadata.generation, currentReplicas: current, desiredReplicas: desired,
      ...(hpa.status?.lastScaleTime || scaledAt ? { lastScaleTime: scaledAt ?? hpa.status.lastScaleTime } : {}),
      ...(utilization !== undefined ? { currentCPUUtilizationPercentage: utilization } : {}),
    };
    if (Bun.deepEquals(status, hpa.status ?? {}) && Bun.deepEquals(annotations, hpa.metadata.annotations ?? {})) return;
    await this.ctx.client.update(HPA, { ...hpa, metadata: { ...hpa.metadata, annotations }, status }, { namespace: hpa.metadata.namespace, subresource: "status" });
  }
}

/** Each pod's summed usage of a resource from PodMetrics (millicores for cpu), skipping pods missing a container's. */
function podUsage(items: Obj[], resource: string): Map<string, PodUsage> {
  const out = new Map<string, PodUsage>();
  for (const m of items) {
    const values = (m.containers ?? []).map((c: Obj) => c.usage?.[resource]);
    if (!values.length || values.some((v: unknown) => v === undefined)) continue;
    const value = values.reduce((a: number, v: string) => a + (resource === "cpu" ? milli(v) : parseQuantity(v)), 0);
    out.set(m.metadata.name, { value, timestampMs: Date.parse(m.timestamp), windowMs: windowMs(m.window) });
  }
  return out;
}

const windowMs = (w: string | undefined) => {
  const m = /^(?:(\d+)m)?(?:([\d.]+)s)?$/.exec(w ?? "");
  return m ? Number(m[1] ?? 0) * 60_000 + Number(m[2] ?? 0) * 1000 : 0;
};

/** upstream's GetRawMetricReplicas for an average value per pod. */
function averageValueReplicas(current: number, target: number, usage: Map<string, PodUsage>, tolerance: number) {
  if (!usage.size) throw new Error("no metrics returned from resource metrics API");
  const total = [...usage.values()].reduce((a, u) => a + u.value, 0);
  const ratio = total / (target * usage.size);
  const replicas = Math.abs(1 - ratio) <= tolerance ? current : Math.ceil(ratio * usage.size);
  return { replicas, utilization: 0, rawAverage: total / usage.size };
}

export const initHorizontalPodAutoscalerController: ControllerInit = (ctx) => new HorizontalPodAutoscalerController(ctx, ctx.options.hpa);
