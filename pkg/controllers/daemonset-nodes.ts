// Which nodes a DaemonSet's pods belong on and the pod it makes for one (upstream's daemon util, v1.21):
// a node must match the template's nodeName, nodeSelector and required node affinity and have no
// NoSchedule/NoExecute taint the pod does not tolerate — with the tolerations every daemon pod gets — and
// a pod already there may stay unless a NoExecute taint is untolerated. The pod is bound to its node by a
// required node affinity on metadata.name, which the scheduler honours.
import type { Obj } from "../client/client.ts";
import type { Node, Pod, Taint, Toleration } from "../scheduler/framework/api.ts";
import { podMatchesNodeSelectorAndAffinityTerms } from "../scheduler/plugins/node-affinity.ts";
import { tolerationsTolerateTaint } from "../scheduler/plugins/tolerations.ts";
import { POD_REVISION_LABEL } from "./history.ts";

export const TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation";
export const TEMPLATE_GENERATION_LABEL = "pod-template-generation";

/** The tolerations upstream adds to every daemon pod (AddOrUpdateDaemonPodTolerations). */
const DAEMON_TOLERATIONS: Toleration[] = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
];
/** Only pods on the host network run where the network is not set up yet. */
const HOST_NETWORK_TOLERATION: Toleration = { key: "node.kubernetes.io/network-unavailable", operator: "Exists", effect: "NoSchedule" };

/** The pod spec with the daemon tolerations added, replacing any toleration of the same key and effect. */
export function withDaemonTolerations(spec: Obj): Obj {
  const added = spec.hostNetwork ? [...DAEMON_TOLERATIONS, HOST_NETWORK_TOLERATION] : DAEMON_TOLERATIONS;
  const kept = (spec.tolerations ?? []).filter((t: Toleration) => !added.some((a) => a.key === t.key && a.effect === t.effect));
  return { ...spec, tolerations: [...kept, ...added.map((t) => ({ ...t }))] };
}

/** The required node affinity that binds a pod to `nodeName`, in place of the template's terms (ReplaceDaemonSetPodNodeNameNodeAffinity). */
function bindToNode(affinity: Obj | undefined, nodeName: string): Obj {
  const required = { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [nodeName] }] }] };
  const nodeAffinity = { ...(affinity?.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: required };
  return { ...(affinity ?? {}), nodeAffinity };
}

/** The pod template a DaemonSet creates from at `hash` (CreatePodTemplate), bound to `nodeName`. */
export function daemonPodTemplate(ds: Obj, hash: string, nodeName: string): Obj {
  const t = ds.spec.template;
  const labels: Record<string, string> = { ...(t.metadata?.labels ?? {}), [POD_REVISION_LABEL]: hash };
  const generation = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (generation !== undefined) labels[TEMPLATE_GENERATION_LABEL] = generation;
  const spec = withDaemonTolerations(t.spec ?? {});
  spec.affinity = bindToNode(spec.affinity, nodeName);
  return { metadata: { ...(t.metadata ?? {}), labels }, spec };
}

/** The daemon pod as it would be on `nodeName`, for the predicates (NewPod). */
export const probePod = (ds: Obj): Pod => ({ metadata: { ...(ds.spec.template.metadata ?? {}) }, spec: withDaemonTolerations(ds.spec.template.spec ?? {}) } as Pod);

const untolerated = (taints: Taint[], tolerations: Toleration[] | undefined, effects: string[]) =>
  taints.some((t) => effects.includes(t.effect) && !tolerationsTolerateTaint(tolerations, t));

export interface Placement {
  /** A daemon pod should be created on the node. */
  shouldRun: boolean;
  /** A daemon pod already on the node may stay. */
  shouldContinueRunning: boolean;
}

/** Whether the DaemonSet's pod belongs on the node (nodeShouldRunDaemonPod); `pod` is probePod(ds). */
export function placement(ds: Obj, pod: Pod, node: Node): Placement {
  const nodeName = ds.spec.template.spec?.nodeName;
  if ((nodeName && nodeName !== node.metadata.name) || !podMatchesNodeSelectorAndAffinityTerms(pod, node)) {
    return { shouldRun: false, shouldContinueRunning: false };
  }
  const taints = (node.spec?.taints ?? []) as Taint[];
  if (untolerated(taints, pod.spec.tolerations, ["NoSchedule", "NoExecute"])) {
    return { shouldRun: false, shouldContinueRunning: !untolerated(taints, pod.spec.tolerations, ["NoExecute"]) };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/** The node a daemon pod is on, or is bound to by its metadata.name affinity (GetTargetNodeName). */
export function targetNode(pod: Obj): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  for (const term of pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of term.matchFields ?? []) {
      if (f.key === "metadata.name" && f.operator === "In" && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}

/** The pod runs the DaemonSet's current template (IsPodUpdated). */
export function isPodUpdated(ds: Obj, pod: Obj, hash: string): boolean {
  const labels = pod.metadata.labels ?? {};
  const generation = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return labels[POD_REVISION_LABEL] === hash || (generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === generation);
}
