// What ResourceQuota counts (the admission plugin and the resourcequota controller alike): each object's
// usage (object counts, a pod's compute resources, a claim's storage, a Service's node ports and load
// balancers) and whether a quota's scopes cover a pod.
import { podQOSClass } from "../util/podqos.ts";
import { podResources, value } from "./resources.ts";

type Obj = Record<string, any>;
export type Usage = Record<string, number>;
/** What names a counted type: its group, plural and kind. */
export interface QuotaType { group: string; plural: string; kind: string }

/** The short names upstream counts some resources by (the rest as count/<resource>.<group>). */
const LEGACY_COUNTS: Record<string, string> = {
  pods: "pods", services: "services", configmaps: "configmaps", secrets: "secrets", replicationcontrollers: "replicationcontrollers",
  resourcequotas: "resourcequotas", persistentvolumeclaims: "persistentvolumeclaims",
};

const countName = (def: QuotaType) => `count/${def.group ? `${def.plural}.${def.group}` : def.plural}`;

/** A pod that has finished uses nothing. */
export const podCounts = (pod: Obj) => pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed";

export function usageOf(def: QuotaType, obj: Obj): Usage {
  const u: Usage = { [countName(def)]: 1 };
  const legacy = def.group === "" ? LEGACY_COUNTS[def.plural] : undefined;
  if (legacy) u[legacy] = 1;
  if (def.group === "" && def.kind === "Pod") {
    if (!podCounts(obj)) return {};
    for (const [r, n] of Object.entries(podResources(obj, "requests"))) { u[`requests.${r}`] = n; if (r === "cpu" || r === "memory" || r === "ephemeral-storage") u[r] = n; }
    for (const [r, n] of Object.entries(podResources(obj, "limits"))) u[`limits.${r}`] = n;
  }
  if (def.group === "" && def.kind === "PersistentVolumeClaim") {
    u["requests.storage"] = value(obj.spec?.resources?.requests?.storage);
    if (obj.spec?.storageClassName) {
      u[`${obj.spec.storageClassName}.storageclass.storage.k8s.io/requests.storage`] = u["requests.storage"];
      u[`${obj.spec.storageClassName}.storageclass.storage.k8s.io/persistentvolumeclaims`] = 1;
    }
  }
  if (def.group === "" && def.kind === "Service") {
    const type = obj.spec?.type;
    if (type === "NodePort" || type === "LoadBalancer") u["services.nodeports"] = (obj.spec?.ports ?? []).length;
    if (type === "LoadBalancer") u["services.loadbalancers"] = 1;
  }
  return u;
}

/** The compute resources a quota makes every pod name (`must specify`). */
export const COMPUTE = ["requests.cpu", "requests.memory", "limits.cpu", "limits.memory", "cpu", "memory"];

/** Does a quota with these scopes track this pod (non-pods are tracked only by unscoped quotas)? */
export function inScope(quota: Obj, def: QuotaType, obj: Obj): boolean {
  const scopes: string[] = quota.spec?.scopes ?? [];
  if (!scopes.length) return true;
  if (!(def.group === "" && def.kind === "Pod")) return false;
  const terminating = obj.spec?.activeDeadlineSeconds !== undefined && obj.spec?.activeDeadlineSeconds !== null;
  const bestEffort = podQOSClass(obj) === "BestEffort";
  const test: Record<string, boolean> = { Terminating: terminating, NotTerminating: !terminating, BestEffort: bestEffort, NotBestEffort: !bestEffort };
  return scopes.every((s) => test[s] ?? true);
}
