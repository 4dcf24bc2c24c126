// PodTopologySpread's PreFilter and Filter: the DoNotSchedule constraints. PreFilter counts the
// matching pods per topology domain among the nodes the pod may land on (its nodeSelector and
// required node affinity) and remembers the two least loaded domains per constraint; Filter then
// checks the skew a node's domain would reach.
import {
  Code, Status, unresolvable, unschedulable,
  type CycleState, type Handle, type NodeInfo, type Pod, type PodInfo, type PreFilterExtensions, type Result,
  type StateData, type TopologySpreadConstraint,
} from "../../framework/index.ts";
import { StateMemo } from "../state-memo.ts";
import { PodTopologySpread } from "../names.ts";
import {
  constraintsOf, countMatchingPods, DO_NOT_SCHEDULE, LABEL_HOSTNAME, ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, nodeEligibility,
  newDomainCounts, nodeHasAllKeys, type Constraint, type DomainCounts,
} from "./common.ts";

const memo = new StateMemo<PreFilterState>("PreFilter" + PodTopologySpread);
const MAX_INT32 = 2147483647;

/**
 * The two domains with the fewest matching pods seen so far; [0] always holds the minimum. Two
 * suffice because preemption changes one node (so one domain) per copy of the state.
 */
export class CriticalPaths {
  value0 = "";
  count0 = MAX_INT32;
  value1 = "";
  count1 = MAX_INT32;

  update(value: string, count: number): void {
    if (value === this.value0 || value === this.value1) {
      if (value === this.value0) this.count0 = count;
      else this.count1 = count;
      if (this.count0 > this.count1) this.swap();
    } else if (count < this.count0) {
      this.value1 = this.value0;
      this.count1 = this.count0;
      this.value0 = value;
      this.count0 = count;
    } else if (count < this.count1) {
      this.value1 = value;
      this.count1 = count;
    }
  }

  private swap(): void {
    [this.value0, this.value1] = [this.value1, this.value0];
    [this.count0, this.count1] = [this.count1, this.count0];
  }

  clone(): CriticalPaths {
    return Object.assign(new CriticalPaths(), this);
  }
}

/**
 * Per constraint, the matching pods by topology value for every eligible domain. Hostname
 * constraints keep none: a host is one node, whose pods Filter counts itself, which spares
 * PreFilter a map of every node.
 */
type Counts = (DomainCounts | null)[];

export class PreFilterState implements StateData {
  constructor(
    readonly constraints: Constraint[],
    readonly counts: Counts,
    readonly paths: CriticalPaths[],
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(this.constraints, this.counts.map((m) => m && newDomainCounts(m)), this.paths.map((p) => p.clone()));
  }

  /** Counts a pod in (or out of) its node's domains, when it is one the constraints see. */
  update(updated: Pod, preemptor: Pod, nodeInfo: NodeInfo, delta: number): void {
    const node = nodeInfo.node;
    if (!node || updated.metadata.namespace !== preemptor.metadata.namespace) return;
    const labels = node.metadata.labels;
    if (!nodeHasAllKeys(labels, this.constraints)) return;
    const eligible = nodeEligibility(preemptor);
    if (eligible && !eligible(node)) return;
    for (let i = 0; i < this.constraints.length; i++) {
      const c = this.constraints[i];
      if (!c.selector.matches(updated.metadata.labels)) continue;
      const value = labels![c.topologyKey];
      const counts = this.counts[i];
      // The node already holds (or no longer holds) the pod.
      const n = counts ? (counts[value] ?? 0) + delta : countMatchingPods(nodeInfo.pods, c.selector, preemptor.metadata.namespace);
      if (counts) counts[value] = n;
      this.paths[i].update(value, n);
    }
  }
}

const EMPTY_STATE = new PreFilterState([], [], []);

/** Builds the state for the pod over the snapshot's nodes. */
export function preFilterState(handle: Handle, pod: Pod, defaults: TopologySpreadConstraint[]): PreFilterState {
  const constraints = constraintsOf(pod, DO_NOT_SCHEDULE, defaults, handle.listers);
  if (constraints.length === 0) return EMPTY_STATE;
  const counts: Counts = constraints.map((c) => (c.topologyKey === LABEL_HOSTNAME ? null : newDomainCounts()));
  const paths = constraints.map(() => new CriticalPaths());
  const ns = pod.metadata.namespace;
  const eligible = nodeEligibility(pod);
  for (const ni of handle.snapshotSharedLister().nodeInfos().list()) {
    const node = ni.node;
    if (!node || !nodeHasAllKeys(node.metadata.labels, constraints) || (eligible && !eligible(node))) continue;
    for (let i = 0; i < constraints.length; i++) {
      const c = constraints[i];
      const value = node.metadata.labels![c.topologyKey];
      const pods = ni.pods.length === 0 ? 0 : countMatchingPods(ni.pods, c.selector, ns);
      const m = counts[i];
      if (m === null) paths[i].update(value, pods);
      else {
        const before = m[value];
        m[value] = before === undefined ? pods : before + pods;
      }
    }
  }
  for (let i = 0; i < constraints.length; i++) {
    const m = counts[i];
    if (m) for (const value in m) paths[i].update(value, m[value]);
  }
  return new PreFilterState(constraints, counts, paths);
}

export function writePreFilterState(state: CycleState, s: PreFilterState): void {
  memo.write(state, s);
}

export const spreadPreFilterExtensions: PreFilterExtensions = {
  addPod(state, podToSchedule, podInfoToAdd: PodInfo, nodeInfo: NodeInfo) {
    memo.read(state).update(podInfoToAdd.pod, podToSchedule, nodeInfo, 1);
    return null;
  },
  removePod(state, podToSchedule, podInfoToRemove: PodInfo, nodeInfo: NodeInfo) {
    memo.read(state).update(podInfoToRemove.pod, podToSchedule, nodeInfo, -1);
    return null;
  },
};

/** Matching pods in the node's domain, plus the pod itself, less the minimum, must stay within maxSkew. */
export function spreadFilter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Result {
  const node = nodeInfo.node;
  if (!node) return new Status(Code.Error, "node not found");
  const s = memo.read(state);
  const constraints = s.constraints;
  if (constraints.length === 0) return null;
  const labels = node.metadata.labels ?? {};
  for (let i = 0; i < constraints.length; i++) {
    const c = constraints[i];
    const value = labels[c.topologyKey];
    if (value === undefined) return unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
    const self = c.selector.matches(pod.metadata.labels) ? 1 : 0;
    const counts = s.counts[i];
    const matching = counts ? counts[value] ?? 0 : countMatchingPods(nodeInfo.pods, c.selector, pod.metadata.namespace);
    const skew = matching + self - s.paths[i].count0;
    if (skew > c.maxSkew) return unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
  }
  return null;
}
