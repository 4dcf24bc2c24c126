// Which pods on a node preemption would evict for the preemptor (upstream's selectVictimsOnNode
// and dryRunPreemption): all lower-priority pods out, then as many as possible back in, most
// important first, budget-violating ones tried before the others.
import { isSuccess, type CycleState, type Handle, type NodeInfo, type Pod, type PodInfo } from "../../framework/index.ts";
import { splitByBudgetViolation, type Budget } from "./pdb.ts";
import { moreImportantFirst, priorityOf } from "./pods.ts";

export interface Candidate {
  name: string;
  /** The pods to evict, in the order they were chosen. */
  victims: Pod[];
  /** How many of them take a PodDisruptionBudget below zero. */
  numPDBViolations: number;
}

/** The victims on a copy of the node, or null when evicting cannot make the pod fit there. */
export function selectVictimsOnNode(
  handle: Handle, state: CycleState, pod: Pod, nodeInfo: NodeInfo, budgets: Budget[], now: number,
): Candidate | null {
  const removed = new Map<Pod, PodInfo>();
  const remove = (pi: PodInfo): boolean => {
    nodeInfo.removePod(pi.pod);
    return isSuccess(handle.runPreFilterExtensionRemovePod(state, pod, pi, nodeInfo));
  };
  const priority = priorityOf(pod);
  for (const pi of nodeInfo.pods.slice()) {
    if (priorityOf(pi.pod) >= priority) continue;
    removed.set(pi.pod, pi);
    if (!remove(pi)) return null;
  }
  // Nothing to evict: the node is as the filters saw it.
  if (removed.size === 0) return null;
  const fits = () => isSuccess(handle.runFilterPluginsWithNominatedPods(state, pod, nodeInfo));
  // Affinity to lower-priority pods is not worth solving for: if evicting them all does not help, give up.
  if (!fits()) return null;
  const { violating, nonViolating } = splitByBudgetViolation(moreImportantFirst([...removed.keys()], now), budgets);
  const victims: Pod[] = [];
  let numPDBViolations = 0;
  /** Puts the pod back; keeps it there if the preemptor still fits, else evicts it. */
  const reprieve = (p: Pod): boolean | null => {
    const pi = removed.get(p)!;
    nodeInfo.addPodInfo(pi);
    if (!isSuccess(handle.runPreFilterExtensionAddPod(state, pod, pi, nodeInfo))) return null;
    if (fits()) return true;
    if (!remove(pi)) return null;
    victims.push(p);
    return false;
  };
  for (const p of violating) {
    const kept = reprieve(p);
    if (kept === null) return null;
    if (!kept) numPDBViolations++;
  }
  for (const p of nonViolating) if (reprieve(p) === null) return null;
  return { name: nodeInfo.name, victims, numPDBViolations };
}

/**
 * Tries the nodes from `offset` on, each on its own copy of the node and the state, until
 * `numCandidates` candidates are found with at least one that violates no budget. Candidates
 * violating none come first.
 */
export function dryRunPreemption(
  handle: Handle, state: CycleState, pod: Pod, nodes: NodeInfo[], budgets: Budget[], offset: number, numCandidates: number, now: number,
): Candidate[] {
  const clean: Candidate[] = [];
  const violating: Candidate[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const ni = nodes[(offset + i) % nodes.length];
    const c = selectVictimsOnNode(handle, state.clone(), pod, ni.clone(), budgets, now);
    if (!c) continue;
    const list = c.numPDBViolations === 0 ? clean : violating;
    if (list.length < numCandidates) list.push(c);
    if (clean.length > 0 && clean.length + violating.length >= numCandidates) break;
  }
  return [...clean, ...violating];
}
