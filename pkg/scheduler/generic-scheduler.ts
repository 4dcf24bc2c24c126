// Placing one pod (upstream's core/generic_scheduler.go): filter an adaptive share of the nodes,
// starting where the last cycle stopped, score the feasible ones and take the best.
import {
  Code, isSuccess, Status, type CycleState, type Framework, type NodeInfo, type NodeScore, type NodeToStatusMap, type Pod, type Snapshot,
} from "./framework/index.ts";
import { FitError, NoNodesAvailableError } from "./fit-error.ts";

const MIN_FEASIBLE_NODES_TO_FIND = 100;
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/**
 * How many feasible nodes to look for: all of them under 100 nodes or at 100%; otherwise the
 * configured percentage, or by default 50% less 1% per 125 nodes (at least 5%), and at least 100.
 */
export function numFeasibleNodesToFind(numAllNodes: number, percentageOfNodesToScore: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND || percentageOfNodesToScore >= 100) return numAllNodes;
  let pct = percentageOfNodesToScore;
  if (pct <= 0) pct = Math.max(50 - Math.trunc(numAllNodes / 125), MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND);
  const n = Math.trunc((numAllNodes * pct) / 100);
  return Math.max(n, MIN_FEASIBLE_NODES_TO_FIND);
}

export interface ScheduleResult {
  suggestedHost: string;
  /** Nodes the filters looked at. */
  evaluatedNodes: number;
  feasibleNodes: number;
}

/** Thrown for an internal error in a plugin (upstream returns the status as an error). */
export class SchedulingError extends Error {}

export class GenericScheduler {
  private nextStartNodeIndex = 0;

  /** `percentageOfNodesToScore` 0 means adaptive, as upstream's default. */
  constructor(readonly percentageOfNodesToScore = 0, private readonly random: () => number = Math.random) {}

  /** Chooses a node for the pod on the snapshot; throws FitError, NoNodesAvailableError or SchedulingError. */
  schedule(fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot): ScheduleResult {
    const nodes = snapshot.nodeInfoList;
    if (nodes.length === 0) throw new NoNodesAvailableError();
    const statuses: NodeToStatusMap = new Map();
    const feasible = this.findNodesThatFitPod(fwk, state, pod, nodes, statuses);
    if (feasible.length === 0) throw new FitError(pod, nodes.length, statuses);
    if (feasible.length === 1) {
      return { suggestedHost: feasible[0].name, evaluatedNodes: 1 + statuses.size, feasibleNodes: 1 };
    }
    const scores = this.prioritizeNodes(fwk, state, pod, feasible);
    return { suggestedHost: this.selectHost(scores), evaluatedNodes: feasible.length + statuses.size, feasibleNodes: feasible.length };
  }

  private findNodesThatFitPod(fwk: Framework, state: CycleState, pod: Pod, nodes: NodeInfo[], statuses: NodeToStatusMap): NodeInfo[] {
    const pre = fwk.runPreFilterPlugins(state, pod);
    if (!isSuccess(pre)) {
      if (!pre.isUnschedulable()) throw new SchedulingError(pre.message());
      // Every node fails the same way.
      for (const n of nodes) statuses.set(n.name, pre);
      return [];
    }
    const want = numFeasibleNodesToFind(nodes.length, this.percentageOfNodesToScore);
    const feasible: NodeInfo[] = [];
    const total = nodes.length;
    if (fwk.filter.length === 0) {
      for (let i = 0; i < want; i++) feasible.push(nodes[(this.nextStartNodeIndex + i) % total]);
      this.nextStartNodeIndex = (this.nextStartNodeIndex + feasible.length) % total;
      return feasible;
    }
    let processed = 0;
    for (let i = 0; i < total && feasible.length < want; i++) {
      const ni = nodes[(this.nextStartNodeIndex + i) % total];
      const s = fwk.runFilterPluginsWithNominatedPods(state, pod, ni);
      processed++;
      if (s === null || s.code === Code.Success) feasible.push(ni);
      else if (s.code === Code.Error) throw new SchedulingError(s.message());
      else statuses.set(ni.name, s);
    }
    this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % total;
    return feasible;
  }

  /** Each feasible node's summed weighted score; every node scores 1 when there are no score plugins. */
  private prioritizeNodes(fwk: Framework, state: CycleState, pod: Pod, nodes: NodeInfo[]): NodeScore[] {
    if (fwk.score.length === 0) return nodes.map((n) => ({ name: n.name, score: 1 }));
    const pre = fwk.runPreScorePlugins(state, pod, nodes);
    if (!isSuccess(pre)) throw new SchedulingError(pre.message());
    const { scores, status } = fwk.runScorePlugins(state, pod, nodes);
    if (!isSuccess(status)) throw new SchedulingError((status as Status).message());
    return scores;
  }

  /** The highest score; ties broken uniformly at random (reservoir sampling, as upstream). */
  selectHost(scores: NodeScore[]): string {
    if (scores.length === 0) throw new SchedulingError("empty priorityList");
    let max = scores[0].score;
    let selected = scores[0].name;
    let ties = 1;
    for (let i = 1; i < scores.length; i++) {
      const s = scores[i];
      if (s.score > max) {
        max = s.score;
        selected = s.name;
        ties = 1;
      } else if (s.score === max) {
        ties++;
        if (Math.floor(this.random() * ties) === 0) selected = s.name;
      }
    }
    return selected;
  }
}
