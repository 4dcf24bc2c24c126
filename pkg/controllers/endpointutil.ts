// What the endpoint and endpointslice controllers share (upstream's pkg/controller/util/endpoint): which
// pods a Service selects and which Services a pod belongs to, whether a pod is an endpoint at all, its
// address for the Service's IP family, the ports a Service's targetPorts resolve to on it, and the
// last-change-trigger-time bookkeeping.
import type { Obj } from "../client/client.ts";
import { NAMESPACE_INDEX, type Store } from "../client/store.ts";

/** The annotation saying when the last change that moved the endpoints happened. */
export const LAST_CHANGE_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";
/** The label on the endpoints of a headless Service. */
export const HEADLESS_LABEL = "service.kubernetes.io/headless";

/** A Service's selector (a set: every pair required) matches a pod's labels. */
export function selects(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  for (const k in selector) if (labels?.[k] !== selector[k]) return false;
  return true;
}

/** The pods of the Service's namespace its selector matches (the selector must be set). */
export function podsOf(pods: Store, svc: Obj): Obj[] {
  const sel = svc.spec.selector as Record<string, string>;
  return pods.byIndex(NAMESPACE_INDEX, svc.metadata.namespace).filter((p) => selects(sel, p.metadata.labels));
}

/** The keys of the Services with a selector that selects the pod. */
export function servicesOf(services: Store, pod: Obj): string[] {
  const keys: string[] = [];
  for (const svc of services.byIndex(NAMESPACE_INDEX, pod.metadata.namespace)) {
    if (svc.spec?.selector && selects(svc.spec.selector, pod.metadata.labels)) keys.push(`${svc.metadata.namespace}/${svc.metadata.name}`);
  }
  return keys;
}

export const readyCondition = (pod: Obj): Obj | undefined => pod.status?.conditions?.find((c: Obj) => c.type === "Ready");
export const isPodReady = (pod: Obj): boolean => readyCondition(pod)?.status === "True";

/** A pod that ran to completion (Succeeded or Failed) is nobody's endpoint. */
const isTerminal = (pod: Obj) => pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";

/** Whether the pod belongs in Endpoints or EndpointSlices at all (a terminating one only if asked). */
export function shouldPodBeInEndpoints(pod: Obj, includeTerminating: boolean): boolean {
  if (isTerminal(pod)) return false;
  if (!pod.status?.podIP && !pod.status?.podIPs?.length) return false;
  return includeTerminating || !pod.metadata.deletionTimestamp;
}

/** A pod's hostname is published when its subdomain names the Service. */
export const shouldSetHostname = (pod: Obj, svc: Obj): boolean =>
  !!pod.spec?.hostname && pod.spec?.subdomain === svc.metadata.name && pod.metadata.namespace === svc.metadata.namespace;

const isIPv6 = (ip: string) => ip.includes(":");

/** The IP family the Service's endpoints are of: its first ipFamily, its ClusterIP's, or (headless) the pod's. */
export function serviceFamily(svc: Obj, pod?: Obj): "IPv4" | "IPv6" {
  const fam = svc.spec?.ipFamilies?.[0];
  if (fam === "IPv4" || fam === "IPv6") return fam;
  const ip: string | undefined = svc.spec?.clusterIP && svc.spec.clusterIP !== "None" ? svc.spec.clusterIP : pod?.status?.podIP;
  return ip && isIPv6(ip) ? "IPv6" : "IPv4";
}

/** The pod's address of the Service's family, if it has one. */
export function podAddress(svc: Obj, pod: Obj): string | undefined {
  const v6 = serviceFamily(svc, pod) === "IPv6";
  const ips: string[] = pod.status?.podIPs?.length ? pod.status.podIPs.map((p: Obj) => p.ip) : [pod.status?.podIP].filter(Boolean);
  return ips.find((ip) => isIPv6(ip) === v6);
}

/**
 * The container port a Service port's targetPort means on the pod (podutil.FindPort): a number as it is,
 * a name looked up among the containers' ports of the same protocol; undefined when none has it.
 */
export function findPort(pod: Obj, svcPort: Obj): number | undefined {
  const target = svcPort.targetPort ?? svcPort.port;
  if (typeof target === "number") return target;
  if (/^\d+$/.test(target)) return Number(target);
  const protocol = svcPort.protocol ?? "TCP";
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? "TCP") === protocol) return p.containerPort;
  }
  return undefined;
}

/** What of a pod the endpoints read, to tell whether an update may change them. */
function endpointView(pod: Obj): string {
  const s = pod.status ?? {}, sp = pod.spec ?? {};
  return JSON.stringify([
    pod.metadata.deletionTimestamp, isPodReady(pod), s.phase, s.podIP, s.podIPs, sp.nodeName, sp.hostname, sp.subdomain,
    (sp.containers ?? []).map((c: Obj) => c.ports),
  ]);
}

const sameLabels = (a: Record<string, string> = {}, b: Record<string, string> = {}) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** The Services to sync after a pod update: none if nothing they read changed, the old pod's too if its labels did. */
export function servicesToUpdateOnPodChange(services: Store, oldPod: Obj, pod: Obj): string[] {
  if (oldPod.metadata.resourceVersion === pod.metadata.resourceVersion) return [];
  const labelsChanged = !sameLabels(oldPod.metadata.labels, pod.metadata.labels);
  if (!labelsChanged && endpointView(oldPod) === endpointView(pod)) return [];
  const keys = servicesOf(services, pod);
  if (labelsChanged) for (const k of servicesOf(services, oldPod)) if (!keys.includes(k)) keys.push(k);
  return keys;
}

/**
 * Upstream's TriggerTimeTracker: per Service, the trigger time last seen of each pod (its Ready condition's
 * lastTransitionTime) and of the Service (its creation). A sync's trigger time is the earliest of those
 * that moved since the previous sync; none on a Service's first sync.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, { pods: Map<string, number>; service: number }>();

  compute(svc: Obj, pods: Obj[]): Date | undefined {
    const key = `${svc.metadata.namespace}/${svc.metadata.name}`;
    const before = this.states.get(key);
    const now = { pods: new Map<string, number>(), service: Date.parse(svc.metadata.creationTimestamp ?? "") || 0 };
    let min = Infinity;
    for (const pod of pods) {
      const t = Date.parse(readyCondition(pod)?.lastTransitionTime ?? "");
      if (!t) continue;
      now.pods.set(pod.metadata.name, t);
      if (t > (before?.pods.get(pod.metadata.name) ?? 0)) min = Math.min(min, t);
    }
    if (now.service > (before?.service ?? 0)) min = Math.min(min, now.service);
    this.states.set(key, now);
    return before && min !== Infinity ? new Date(min) : undefined;
  }

  forget(key: string): void { this.states.delete(key); }
}

/** Go's RFC3339Nano of a time with millisecond precision (trailing zeros dropped, as Go prints it). */
export function rfc3339Nano(d: Date): string {
  return d.toISOString().replace(/\.?0+Z$/, "Z");
}

/** A create refused because its namespace is being deleted (nothing to retry). */
export function isNamespaceTerminating(e: unknown): boolean {
  const err = e as { code?: number; status?: Obj; message?: string };
  if (err?.code !== 403) return false;
  return !!err.status?.details?.causes?.some((c: Obj) => c.reason === "NamespaceTerminating") || /because it is being terminated/.test(err.message ?? "");
}

/** An empty list or map, null or undefined: what a Go API object omits when it writes JSON. */
const isEmpty = (v: unknown) => v == null || (Array.isArray(v) ? v.length === 0 : typeof v === "object" && Object.keys(v as object).length === 0);

function pruned(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pruned);
  if (v === null || typeof v !== "object") return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    const p = pruned(x);
    if (!isEmpty(p)) out[k] = p;
  }
  return out;
}

/** apiequality.Semantic.DeepEqual as the objects read after a JSON round trip: empty and missing are one. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  const pa = pruned(a), pb = pruned(b);
  return (isEmpty(pa) && isEmpty(pb)) || Bun.deepEquals(pa, pb);
}
