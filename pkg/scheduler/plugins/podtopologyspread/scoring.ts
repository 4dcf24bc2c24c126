// PodTopologySpread's PreScore, Score and NormalizeScore: the ScheduleAnyway constraints. A node
// scores the matching pods of its domains, each domain's count weighted by the log of how many
// domains the constraint has (so small topologies are not drowned by large ones); fewer is better.
import {
  MAX_NODE_SCORE, type CycleState, type Handle, type NodeInfo, type NodeScore, type Pod, type Result, type StateData,
  type TopologySpreadConstraint,
} from "../../framework/index.ts";
import { StateMemo } from "../state-memo.ts";
import { PodTopologySpread } from "../names.ts";
import {
  constraintsOf, countMatchingPods, LABEL_HOSTNAME, newDomainCounts, nodeEligibility, nodeHasAllKeys, SCHEDULE_ANYWAY,
  type Constraint, type DomainCounts,
} from "./common.ts";

const memo = new StateMemo<PreScoreState>("PreScore" + PodTopologySpread);

class PreScoreState implements StateData {
  constructor(
    readonly constraints: Constraint[],
    /** Filtered nodes lacking a topology key: they score 0. */
    readonly ignoredNodes: Set<string>,
    /** Per constraint: matching pods by topology value; hostname constraints count in Score instead. */
    readonly counts: DomainCounts[],
    readonly weights: number[],
  ) {}

  clone() { return this; }
}

const topologyNormalizingWeight = (size: number) => Math.log(size + 2);

/**
 * Counts matching pods per domain of the filtered nodes, over every node the pod may land on;
 * true when any ScheduleAnyway constraint applies. A selector that does not parse throws.
 */
export function spreadPreScore(
  handle: Handle, state: CycleState, pod: Pod, filtered: NodeInfo[], defaults: TopologySpreadConstraint[],
): boolean {
  const allNodes = handle.snapshotSharedLister().nodeInfos().list();
  if (filtered.length === 0 || allNodes.length === 0) return false;
  const constraints = constraintsOf(pod, SCHEDULE_ANYWAY, defaults, handle.listers);
  const ignored = new Set<string>();
  const counts = constraints.map(() => newDomainCounts());
  if (constraints.length === 0) {
    memo.write(state, new PreScoreState(constraints, ignored, counts, []));
    return false;
  }
  const sizes = constraints.map(() => 0);
  for (const ni of filtered) {
    const labels = ni.node?.metadata.labels;
    if (!nodeHasAllKeys(labels, constraints)) {
      ignored.add(ni.name);
      continue;
    }
    for (let i = 0; i < constraints.length; i++) {
      const key = constraints[i].topologyKey;
      if (key === LABEL_HOSTNAME || counts[i][labels![key]] !== undefined) continue;
      counts[i][labels![key]] = 0;
      sizes[i]++;
    }
  }
  const weights = constraints.map((c, i) =>
    topologyNormalizingWeight(c.topologyKey === LABEL_HOSTNAME ? filtered.length - ignored.size : sizes[i]));
  const ns = pod.metadata.namespace;
  const eligible = nodeEligibility(pod);
  for (const ni of allNodes) {
    const node = ni.node;
    if (!node || !nodeHasAllKeys(node.metadata.labels, constraints) || (eligible && !eligible(node))) continue;
    for (let i = 0; i < constraints.length; i++) {
      const value = node.metadata.labels![constraints[i].topologyKey];
      const n = counts[i][value];
      // Only domains of filtered nodes are scored (hostname domains are never counted here).
      if (n !== undefined && ni.pods.length > 0) counts[i][value] = n + countMatchingPods(ni.pods, constraints[i].selector, ns);
    }
  }
  memo.write(state, new PreScoreState(constraints, ignored, counts, weights));
  return true;
}

export function spreadScore(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
  const s = memo.read(state);
  if (s.constraints.length === 0 || s.ignoredNodes.has(nodeInfo.name)) return 0;
  const labels = nodeInfo.node?.metadata.labels ?? {};
  let score = 0;
  for (let i = 0; i < s.constraints.length; i++) {
    const c = s.constraints[i];
    const value = labels[c.topologyKey];
    if (value === undefined) continue;
    const count = c.topologyKey === LABEL_HOSTNAME
      ? countMatchingPods(nodeInfo.pods, c.selector, pod.metadata.namespace)
      : s.counts[i][value] ?? 0;
    score += count * s.weights[i] + (c.maxSkew - 1);
  }
  return Math.trunc(score);
}

/** Inverts the scores so the least crowded node gets MAX_NODE_SCORE; ignored nodes get 0. */
export function spreadNormalizeScore(state: CycleState, scores: NodeScore[]): Result {
  const s = memo.read(state);
  const ignored = s.ignoredNodes.size > 0 ? s.ignoredNodes : null;
  let min = Number.MAX_SAFE_INTEGER;
  let max = 0;
  for (const sc of scores) {
    if (ignored?.has(sc.name)) continue;
    if (sc.score < min) min = sc.score;
    if (sc.score > max) max = sc.score;
  }
  for (const sc of scores) {
    if (ignored?.has(sc.name)) sc.score = 0;
    else if (max === 0) sc.score = MAX_NODE_SCORE;
    else sc.score = Math.trunc((MAX_NODE_SCORE * (max + min - sc.score)) / max);
  }
  return null;
}
