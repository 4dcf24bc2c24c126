// What PodTopologySpread's filter and score share: a pod's constraints compiled once, the system
// defaults for pods that state none, and the count of matching pods on a node.
import {
  labelSelector, type LabelSelector, type Listers, type Labels, type Node, type Pod, type PodInfo, type Selector, type TopologySpreadConstraint,
} from "../../framework/index.ts";
import { podMatchesNodeSelectorAndAffinityTerms } from "../node-affinity.ts";

export const DO_NOT_SCHEDULE = "DoNotSchedule";
export const SCHEDULE_ANYWAY = "ScheduleAnyway";
export const LABEL_HOSTNAME = "kubernetes.io/hostname";
export const LABEL_ZONE = "topology.kubernetes.io/zone";

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)";

/** Upstream's system defaults (defaultingType System): spread by host and by zone, softly. */
export const SYSTEM_DEFAULT_CONSTRAINTS: TopologySpreadConstraint[] = [
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: SCHEDULE_ANYWAY, maxSkew: 3 },
  { topologyKey: LABEL_ZONE, whenUnsatisfiable: SCHEDULE_ANYWAY, maxSkew: 5 },
];

export interface PodTopologySpreadArgs {
  defaultConstraints?: TopologySpreadConstraint[] | null;
  /** "System" (upstream's default when no constraints are listed) or "List". */
  defaultingType?: "System" | "List" | "";
}

/** The constraints applied to pods without their own, as the args default them (v1beta1). */
export function defaultConstraintsOf(args: PodTopologySpreadArgs | undefined): TopologySpreadConstraint[] {
  const listed = args?.defaultConstraints ?? [];
  const type = args?.defaultingType || (listed.length > 0 ? "List" : "System");
  return type === "System" ? SYSTEM_DEFAULT_CONSTRAINTS : listed;
}

export interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector: Selector;
}

/** The constraints with this whenUnsatisfiable; a selector that does not parse throws. */
function compile(list: TopologySpreadConstraint[], action: string, selector?: Selector): Constraint[] {
  const out: Constraint[] = [];
  for (const c of list) {
    if (c.whenUnsatisfiable !== action) continue;
    out.push({ maxSkew: c.maxSkew, topologyKey: c.topologyKey, selector: selector ?? labelSelector(c.labelSelector) });
  }
  return out;
}

const hasRequirements = (s: LabelSelector) =>
  Object.keys(s.matchLabels ?? {}).length > 0 || (s.matchExpressions ?? []).length > 0;

/**
 * The selector of the Services, ReplicationControllers, ReplicaSets and StatefulSets that select
 * the pod, all ANDed (upstream's DefaultSelector); null when they add no requirement at all.
 */
function ownersSelector(pod: Pod, listers: Listers): Selector | null {
  const parts: Selector[] = [];
  for (const s of listers.selectorsForPod?.(pod) ?? []) {
    if (!hasRequirements(s)) continue;
    try { parts.push(labelSelector(s)); } catch { /* an owner whose selector does not parse adds nothing */ }
  }
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0];
  return { everything: false, matches: (l) => parts.every((p) => p.matches(l)) };
}

/** The pod's own constraints with this action, or the defaults over its owners' selector. */
export function constraintsOf(pod: Pod, action: string, defaults: TopologySpreadConstraint[], listers: Listers): Constraint[] {
  const own = pod.spec.topologySpreadConstraints ?? [];
  if (own.length > 0) return compile(own, action);
  if (!defaults.some((c) => c.whenUnsatisfiable === action)) return [];
  const selector = ownersSelector(pod, listers);
  return selector ? compile(defaults, action, selector) : [];
}

/**
 * Matching pods by topology value. A prototype-less object rather than a Map: string-keyed lookups
 * on it are several times cheaper, and PreFilter does one per node.
 */
export type DomainCounts = Record<string, number>;
export const newDomainCounts = (from?: DomainCounts): DomainCounts => Object.assign(Object.create(null), from);

/** True when the node carries every constraint's topology key. */
export function nodeHasAllKeys(labels: Labels | undefined, constraints: Constraint[]): boolean {
  if (!labels) return constraints.length === 0;
  for (let i = 0; i < constraints.length; i++) if (!(constraints[i].topologyKey in labels)) return false;
  return true;
}

/**
 * Whether the node is one the pod may land on by its nodeSelector and required node affinity
 * (spreading counts only those); null when the pod restricts nothing, so loops skip the check.
 */
export function nodeEligibility(pod: Pod): ((node: Node) => boolean) | null {
  const hasSelector = Object.keys(pod.spec.nodeSelector ?? {}).length > 0;
  if (!hasSelector && !pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution) return null;
  return (node) => podMatchesNodeSelectorAndAffinityTerms(pod, node);
}

/** Pods in the namespace the selector matches, terminating ones left out. */
export function countMatchingPods(pods: PodInfo[], selector: Selector, namespace: string | undefined): number {
  let n = 0;
  for (let i = 0; i < pods.length; i++) {
    const p = pods[i].pod;
    if (p.metadata.deletionTimestamp || p.metadata.namespace !== namespace) continue;
    if (selector.matches(p.metadata.labels)) n++;
  }
  return n;
}
