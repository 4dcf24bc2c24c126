// InterPodAffinity's PreScore, Score and NormalizeScore: the preferred terms, both ways. Each
// existing pod adds to (or takes from) the score of its node's topology domains: by the weight of
// the incoming pod's preferred terms it matches, and by the weight of its own preferred terms (and
// hardPodAffinityWeight for its required affinity) that match the incoming pod.
import {
  MAX_NODE_SCORE, PodInfo, Status, Code,
  type AffinityTerm, type CycleState, type Handle, type Node, type NodeInfo, type NodeScore, type Pod, type Result, type StateData,
  type WeightedAffinityTerm,
} from "../../framework/index.ts";
import { StateMemo } from "../state-memo.ts";
import { InterPodAffinity } from "../names.ts";
import { namespaceLabelsLookup, termMatches, TopologyCounts, type NamespaceLabelsOf } from "./terms.ts";

const memo = new StateMemo<PreScoreState>("PreScore" + InterPodAffinity);

class PreScoreState implements StateData {
  constructor(readonly topologyScore: TopologyCounts) {}
  clone() { return this; }
}

/** Adds weight × multiplier to the node's domain for the term's key when the term selects the pod. */
function processTerm(
  scores: TopologyCounts, term: AffinityTerm, weight: number, pod: Pod, nsLabelsOf: NamespaceLabelsOf, node: Node, multiplier: number,
): void {
  if (termMatches(term, pod, nsLabelsOf)) scores.addForNode(node, term.topologyKey, weight * multiplier);
}

function processTerms(scores: TopologyCounts, terms: readonly WeightedAffinityTerm[], pod: Pod, nsLabelsOf: NamespaceLabelsOf, node: Node, multiplier: number): void {
  for (const t of terms) processTerm(scores, t.term, t.weight, pod, nsLabelsOf, node, multiplier);
}

interface Scoring {
  incoming: PodInfo;
  nsLabelsOf: NamespaceLabelsOf;
  hardPodAffinityWeight: number;
  scores: TopologyCounts;
}

function processExistingPod(c: Scoring, existing: PodInfo, node: Node): void {
  const incomingPod = c.incoming.pod;
  processTerms(c.scores, c.incoming.preferredAffinityTerms, existing.pod, c.nsLabelsOf, node, 1);
  processTerms(c.scores, c.incoming.preferredAntiAffinityTerms, existing.pod, c.nsLabelsOf, node, -1);
  if (c.hardPodAffinityWeight > 0) {
    for (const t of existing.requiredAffinityTerms) processTerm(c.scores, t, c.hardPodAffinityWeight, incomingPod, c.nsLabelsOf, node, 1);
  }
  processTerms(c.scores, existing.preferredAffinityTerms, incomingPod, c.nsLabelsOf, node, 1);
  processTerms(c.scores, existing.preferredAntiAffinityTerms, incomingPod, c.nsLabelsOf, node, -1);
}

/** Whether the pod has preferred affinity or anti-affinity terms of its own. */
export function hasPreferredTerms(pod: Pod): boolean {
  const a = pod.spec.affinity;
  return (a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).length > 0 ||
    (a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).length > 0;
}

/**
 * Sums the domains' scores. Unless the incoming pod has preferred terms of its own, only pods with
 * affinity can contribute, so only the nodes holding them are walked.
 */
export function affinityPreScore(
  handle: Handle, state: CycleState, pod: Pod, nodes: NodeInfo[], hardPodAffinityWeight: number, namespaceSelector: boolean,
): Result {
  if (nodes.length === 0) return null;
  const hasPreferred = hasPreferredTerms(pod);
  const lister = handle.snapshotSharedLister().nodeInfos();
  const walk = hasPreferred ? lister.list() : lister.havePodsWithAffinityList();
  const scores = new TopologyCounts();
  if (walk.length > 0) {
    const incoming = new PodInfo(pod);
    if (incoming.parseError) return new Status(Code.Error, `parsing pod: ${incoming.parseError.message}`);
    const c: Scoring = { incoming, nsLabelsOf: namespaceLabelsLookup(handle.listers, namespaceSelector), hardPodAffinityWeight, scores };
    for (const ni of walk) {
      const node = ni.node;
      if (!node) continue;
      for (const existing of hasPreferred ? ni.pods : ni.podsWithAffinity) processExistingPod(c, existing, node);
    }
  }
  memo.write(state, new PreScoreState(scores));
  return null;
}

export function affinityScore(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): number {
  const s = memo.read(state);
  if (s.topologyScore.pairs === 0 || !nodeInfo.node) return 0;
  return s.topologyScore.sumForNode(nodeInfo.node);
}

/** Scales the scores into [0, MAX_NODE_SCORE] between the lowest (or 0) and the highest (or 0). */
export function affinityNormalizeScore(state: CycleState, scores: NodeScore[]): Result {
  if (memo.read(state).topologyScore.pairs === 0) return null;
  let max = 0;
  let min = 0;
  for (const s of scores) {
    if (s.score > max) max = s.score;
    if (s.score < min) min = s.score;
  }
  const diff = max - min;
  for (const s of scores) s.score = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((s.score - min) / diff)) : 0;
  return null;
}
