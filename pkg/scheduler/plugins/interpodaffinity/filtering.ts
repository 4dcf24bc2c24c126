// InterPodAffinity's PreFilter and Filter: the required terms. PreFilter counts, by topology pair,
// the existing pods whose required anti-affinity selects the incoming pod (walking only nodes that
// hold such pods) and the existing pods the incoming pod's own terms select; Filter reads the
// counts for the node's labels.
import {
  Code, PodInfo, Status, unresolvable, unschedulable,
  type AffinityTerm, type CycleState, type Handle, type Node, type NodeInfo, type Pod, type PreFilterExtensions, type Result, type StateData,
} from "../../framework/index.ts";
import { StateMemo } from "../state-memo.ts";
import { InterPodAffinity } from "../names.ts";
import { matchesAllTerms, namespaceLabelsLookup, termMatches, TopologyCounts, type NamespaceLabelsOf } from "./terms.ts";

export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity/anti-affinity rules";
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

const memo = new StateMemo<PreFilterState>("PreFilter" + InterPodAffinity);

/** The incoming pod and its required terms (a PodInfo, or no terms for a pod without pod affinity). */
type Incoming = Pick<PodInfo, "pod" | "requiredAffinityTerms" | "requiredAntiAffinityTerms">;
const NO_TERMS: AffinityTerm[] = [];

class PreFilterState implements StateData {
  constructor(
    readonly podInfo: Incoming,
    readonly nsLabelsOf: NamespaceLabelsOf,
    /** Existing pods whose required anti-affinity selects the incoming pod. */
    readonly existingAntiAffinity: TopologyCounts,
    /** Existing pods matching all of the incoming pod's required affinity terms. */
    readonly affinity: TopologyCounts,
    /** Existing pods matching one of the incoming pod's required anti-affinity terms (per term). */
    readonly antiAffinity: TopologyCounts,
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(this.podInfo, this.nsLabelsOf, this.existingAntiAffinity.clone(), this.affinity.clone(), this.antiAffinity.clone());
  }

  /** Counts one existing pod on the node in or out (multiplier 1 or -1). */
  update(existing: PodInfo, node: Node, multiplier: number): void {
    countExisting(this, existing, node, multiplier);
    const incoming = this.podInfo.pod;
    for (const t of existing.requiredAntiAffinityTerms) {
      if (termMatches(t, incoming, this.nsLabelsOf)) this.existingAntiAffinity.addForNode(node, t.topologyKey, multiplier);
    }
  }
}

/** The incoming pod's own required terms against one existing pod. */
function countExisting(s: PreFilterState, existing: PodInfo, node: Node, multiplier: number): void {
  const { requiredAffinityTerms, requiredAntiAffinityTerms } = s.podInfo;
  if (matchesAllTerms(requiredAffinityTerms, existing.pod, s.nsLabelsOf)) {
    for (const t of requiredAffinityTerms) s.affinity.addForNode(node, t.topologyKey, multiplier);
  }
  for (const t of requiredAntiAffinityTerms) {
    if (termMatches(t, existing.pod, s.nsLabelsOf)) s.antiAffinity.addForNode(node, t.topologyKey, multiplier);
  }
}

/** Builds the state, or an UnschedulableAndUnresolvable status when the pod's terms do not parse. */
export function affinityPreFilter(handle: Handle, state: CycleState, pod: Pod, namespaceSelector: boolean): Result {
  const a = pod.spec.affinity;
  let podInfo: Incoming = { pod, requiredAffinityTerms: NO_TERMS, requiredAntiAffinityTerms: NO_TERMS };
  if (a?.podAffinity || a?.podAntiAffinity) {
    const parsed = new PodInfo(pod);
    if (parsed.parseError) return unresolvable(`parsing pod: ${parsed.parseError.message}`);
    podInfo = parsed;
  }
  const nsLabelsOf = namespaceLabelsLookup(handle.listers, namespaceSelector);
  const s = new PreFilterState(podInfo, nsLabelsOf, new TopologyCounts(), new TopologyCounts(), new TopologyCounts());
  const nodes = handle.snapshotSharedLister().nodeInfos();
  for (const ni of nodes.havePodsWithRequiredAntiAffinityList()) {
    const node = ni.node;
    if (!node) continue;
    for (const existing of ni.podsWithRequiredAntiAffinity) {
      for (const t of existing.requiredAntiAffinityTerms) {
        if (termMatches(t, pod, nsLabelsOf)) s.existingAntiAffinity.addForNode(node, t.topologyKey, 1);
      }
    }
  }
  if (podInfo.requiredAffinityTerms.length > 0 || podInfo.requiredAntiAffinityTerms.length > 0) {
    for (const ni of nodes.list()) {
      const node = ni.node;
      if (!node) continue;
      for (const existing of ni.pods) countExisting(s, existing, node, 1);
    }
  }
  memo.write(state, s);
  return null;
}

export const affinityPreFilterExtensions: PreFilterExtensions = {
  addPod(state, _pod, podInfoToAdd, nodeInfo: NodeInfo) {
    if (nodeInfo.node) memo.read(state).update(podInfoToAdd, nodeInfo.node, 1);
    return null;
  },
  removePod(state, _pod, podInfoToRemove, nodeInfo: NodeInfo) {
    if (nodeInfo.node) memo.read(state).update(podInfoToRemove, nodeInfo.node, -1);
    return null;
  },
};

/**
 * Every required affinity term needs the node's topology label and a matching pod in its domain,
 * except for the first pod of a group: when no pod anywhere matches and the pod matches its own terms.
 */
function satisfiesAffinity(s: PreFilterState, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  let podsExist = true;
  for (const t of s.podInfo.requiredAffinityTerms) {
    const value = labels[t.topologyKey];
    if (value === undefined) return false;
    if (s.affinity.get(t.topologyKey, value) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  return s.affinity.pairs === 0 && matchesAllTerms(s.podInfo.requiredAffinityTerms, s.podInfo.pod, s.nsLabelsOf);
}

function satisfiesAntiAffinity(s: PreFilterState, node: Node): boolean {
  if (s.antiAffinity.pairs === 0) return true;
  const labels = node.metadata.labels ?? {};
  for (const t of s.podInfo.requiredAntiAffinityTerms) {
    const value = labels[t.topologyKey];
    if (value !== undefined && s.antiAffinity.get(t.topologyKey, value) > 0) return false;
  }
  return true;
}

export function affinityFilter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): Result {
  const node = nodeInfo.node;
  if (!node) return new Status(Code.Error, "node not found");
  const s = memo.read(state);
  if (!satisfiesAffinity(s, node)) {
    return new Status(Code.UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_AFFINITY_RULES_NOT_MATCH);
  }
  if (!satisfiesAntiAffinity(s, node)) return unschedulable(ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
  if (s.existingAntiAffinity.pairs > 0 && s.existingAntiAffinity.anyPositiveForNode(node)) {
    return unschedulable(ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
  }
  return null;
}
