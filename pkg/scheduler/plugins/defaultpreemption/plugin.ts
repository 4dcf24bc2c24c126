// DefaultPreemption (PostFilter): when no node fits, find nodes where evicting lower-priority pods
// would make room, pick the one that costs least, evict there and nominate it.
import {
  Code, Status, type CycleState, type Handle, type NodeInfoLister, type NodeToStatusMap, type Plugin, type Pod, type PostFilterPlugin, type PostFilterResult,
  type Result,
} from "../../framework/index.ts";
import { DefaultPreemption } from "../names.ts";
import { compileBudgets } from "./pdb.ts";
import { pickOneNodeForPreemption } from "./pick.ts";
import { priorityOf } from "./pods.ts";
import { dryRunPreemption, type Candidate } from "./victims.ts";

export interface DefaultPreemptionArgs {
  /** The share of nodes to find candidates on (0..100, default 10). */
  minCandidateNodesPercentage?: number | null;
  /** At least this many candidates (default 100). */
  minCandidateNodesAbsolute?: number | null;
}

export const ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods";

/** How many candidates to look for among numNodes. */
export function numCandidatesFor(numNodes: number, percentage: number, absolute: number): number {
  return Math.min(Math.max(Math.trunc((numNodes * percentage) / 100), absolute), numNodes);
}

/**
 * False for a pod that never preempts (preemptionPolicy Never), or one already nominated to a node
 * where a lower-priority pod is still terminating (its earlier preemption is under way), unless the
 * filters found that node hopeless.
 */
export function podEligibleToPreemptOthers(pod: Pod, nodes: NodeInfoLister, nominatedNodeStatus: Result | undefined): boolean {
  if (pod.spec.preemptionPolicy === "Never") return false;
  const nominated = pod.status?.nominatedNodeName;
  if (!nominated) return true;
  if (nominatedNodeStatus?.code === Code.UnschedulableAndUnresolvable) return true;
  const ni = nodes.get(nominated);
  if (!ni) return true;
  const priority = priorityOf(pod);
  return !ni.pods.some((p) => p.pod.metadata.deletionTimestamp && priorityOf(p.pod) < priority);
}

/** A failed API call leaves the pod to be retried; the action reports the failure itself. */
const ignore = () => {};

export function newDefaultPreemption(args: unknown, handle: Handle, random: () => number = Math.random, now: () => number = Date.now): Plugin {
  const a = (args ?? {}) as DefaultPreemptionArgs;
  const percentage = a.minCandidateNodesPercentage ?? 10;
  const absolute = a.minCandidateNodesAbsolute ?? 100;

  const findCandidates = (state: CycleState, pod: Pod, statuses: NodeToStatusMap): Candidate[] => {
    const all = handle.snapshotSharedLister().nodeInfos().list();
    if (all.length === 0) throw new Error(ERR_NO_NODES_AVAILABLE);
    const potential = all.filter((ni) => statuses.get(ni.name)?.code !== Code.UnschedulableAndUnresolvable);
    if (potential.length === 0) {
      // Preemption cannot help anywhere: a nomination made earlier is stale.
      if (pod.status?.nominatedNodeName) handle.actions.setNominatedNodeName(pod, "").catch(ignore);
      return [];
    }
    const offset = Math.floor(random() * potential.length);
    const budgets = compileBudgets(handle.listers.podDisruptionBudgets());
    return dryRunPreemption(handle, state, pod, potential, budgets, offset, numCandidatesFor(potential.length, percentage, absolute), now());
  };

  /** Evicts the victims, records why, and un-nominates lower-priority pods nominated to the node. */
  const prepare = (c: Candidate, pod: Pod): void => {
    const message = `Preempted by ${pod.metadata.namespace}/${pod.metadata.name} on node ${c.name}`;
    for (const victim of c.victims) {
      handle.actions.deletePod(victim).then(() => handle.actions.event(victim, "Normal", "Preempted", message, pod), ignore);
    }
    const priority = priorityOf(pod);
    for (const pi of handle.nominator.nominatedPodsForNode(c.name)) {
      if (priorityOf(pi.pod) < priority && pi.pod.status?.nominatedNodeName) handle.actions.setNominatedNodeName(pi.pod, "").catch(ignore);
    }
  };

  const plugin: PostFilterPlugin = {
    name: DefaultPreemption,
    postFilter(state, pod, statuses): { result: PostFilterResult | null; status: Result } {
      const nominated = pod.status?.nominatedNodeName;
      const nodes = handle.snapshotSharedLister().nodeInfos();
      if (!podEligibleToPreemptOthers(pod, nodes, nominated ? statuses.get(nominated) : undefined)) {
        return { result: null, status: new Status(Code.Unschedulable) };
      }
      const best = pickOneNodeForPreemption(findCandidates(state, pod, statuses), now());
      if (!best) return { result: null, status: new Status(Code.Unschedulable) };
      prepare(best, pod);
      return { result: { nominatedNodeName: best.name }, status: null };
    },
  };
  return plugin;
}
