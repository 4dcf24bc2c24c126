// The plugin interfaces of the scheduling framework (upstream's framework/interface.go), the handle
// plugins get at construction, and the registry of plugin factories profiles are built from.
// A plugin is one object implementing any number of extension points; the framework finds them by
// their methods. Plugins run synchronously in the scheduling cycle; only the binding cycle is async.
import type { AnyObject, LabelSelector, Labels, Pod } from "./api.ts";
import type { CycleState } from "./cycle-state.ts";
import type { NodeInfo } from "./node-info.ts";
import type { PodInfo, QueuedPodInfo } from "./pod-info.ts";
import type { SharedLister } from "./snapshot.ts";
import type { Result, Status } from "./status.ts";

export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;
/** The largest total score a node can get (upstream's MaxTotalScore, int64 max). */
export const MAX_TOTAL_SCORE = Number.MAX_SAFE_INTEGER;

export interface NodeScore {
  name: string;
  score: number;
}

/** Why each node was filtered out, by node name. */
export type NodeToStatusMap = Map<string, Status>;

export interface Plugin {
  readonly name: string;
}

export interface QueueSortPlugin extends Plugin {
  /** True when `a` should be scheduled before `b`. */
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

/** Incremental updates of a PreFilter's state when preemption adds or removes a pod on a node. */
export interface PreFilterExtensions {
  addPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Result;
  removePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Result;
}

export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: Pod): Result;
  preFilterExtensions(): PreFilterExtensions | null;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Result;
  /**
   * Optional: true when Filter passes every node for this pod whatever else is on the node (no
   * volumes, no host ports...). Asked once per cycle so the per-node loop runs only filters that matter.
   */
  filterSkips?(pod: Pod): boolean;
}

export interface PostFilterResult {
  nominatedNodeName: string;
}

export interface PostFilterPlugin extends Plugin {
  /** Runs after no node fit; may make room (preemption) and nominate a node. */
  postFilter(state: CycleState, pod: Pod, filteredNodeStatusMap: NodeToStatusMap): { result: PostFilterResult | null; status: Result };
}

export interface PreScorePlugin extends Plugin {
  /** Gets the nodes that passed the filters. (Upstream passes the Node objects; NodeInfos save a lookup.) */
  preScore(state: CycleState, pod: Pod, nodes: NodeInfo[]): Result;
}

export interface ScoreExtensions {
  /** Rewrites the scores in place into [MIN_NODE_SCORE, MAX_NODE_SCORE]. */
  normalizeScore(state: CycleState, pod: Pod, scores: NodeScore[]): Result;
}

export interface ScorePlugin extends Plugin {
  /** The node's score; throwing is an internal error (upstream's Error status). */
  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number;
  /**
   * Optional: scores[i].score = score(state, pod, nodes[i]) for every node at once; the framework
   * prefers it, sparing a call per node through a site every plugin shares.
   */
  scoreNodes?(state: CycleState, pod: Pod, nodes: NodeInfo[], scores: NodeScore[]): void;
  scoreExtensions(): ScoreExtensions | null;
  /**
   * Optional: true when every node would get the same score for this pod after normalizing, so
   * the plugin cannot change the choice; the framework then leaves it out of the cycle.
   */
  scoreSkips?(pod: Pod): boolean;
}

export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: Pod, nodeName: string): Result;
  unreserve(state: CycleState, pod: Pod, nodeName: string): void;
}

export interface PermitPlugin extends Plugin {
  /** Success, Wait (with a timeout in ms) or a rejection. */
  permit(state: CycleState, pod: Pod, nodeName: string): { status: Result; timeoutMs: number };
}

export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: Pod, nodeName: string): Promise<Result>;
}

export interface BindPlugin extends Plugin {
  /** Binds the pod, or returns Skip to let the next bind plugin do it. */
  bind(state: CycleState, pod: Pod, nodeName: string): Promise<Result>;
}

export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, pod: Pod, nodeName: string): void;
}

/** Pods nominated to nodes by preemption, which the filters count as already there (PodNominator). */
export interface PodNominator {
  addNominatedPod(pod: Pod, nodeName: string): void;
  deleteNominatedPodIfExists(pod: Pod): void;
  updateNominatedPod(oldPod: Pod, newPod: Pod): void;
  nominatedPodsForNode(nodeName: string): PodInfo[];
}

/** Objects other than pods and nodes that plugins read; the caller backs them with informers. */
export interface Listers {
  persistentVolumeClaim(namespace: string, name: string): AnyObject | undefined;
  persistentVolume(name: string): AnyObject | undefined;
  storageClass(name: string): AnyObject | undefined;
  /** PodDisruptionBudgets (policy/v1beta1), for preemption. */
  podDisruptionBudgets(): AnyObject[];
  /** A namespace's labels, for affinity terms with a namespaceSelector. */
  namespaceLabels(name: string): Labels | undefined;
  /** The CSINode (storage.k8s.io/v1) of a node, for CSI volume limits; optional. */
  csiNode?(nodeName: string): AnyObject | undefined;
  /**
   * The selectors of the Services, ReplicationControllers, ReplicaSets and StatefulSets in the pod's
   * namespace that select it (a map selector as matchLabels), for PodTopologySpread's default
   * constraints. Without it, default constraints never apply.
   */
  selectorsForPod?(pod: Pod): LabelSelector[];
}

/** What plugins may do to the cluster; the caller backs it with API calls. */
export interface ClusterActions {
  /** POSTs the pods/binding subresource (DefaultBinder). */
  bind(pod: Pod, nodeName: string): Promise<void>;
  /** Deletes a preemption victim. */
  deletePod(pod: Pod): Promise<void>;
  /** Sets status.nominatedNodeName; "" clears it. */
  setNominatedNodeName(pod: Pod, nodeName: string): Promise<void>;
  /** Sets an annotation on a PersistentVolumeClaim (VolumeBinding's volume.kubernetes.io/selected-node). */
  annotateClaim(namespace: string, name: string, key: string, value: string): Promise<void>;
  /** Records an event about a pod (e.g. "Preempted"), `related` to another (its preemptor). */
  event(pod: Pod, type: "Normal" | "Warning", reason: string, message: string, related?: Pod): void;
}

/** What a plugin receives at construction (upstream's framework.Handle with its PreemptHandle). */
export interface Handle {
  readonly profileName: string;
  /** The snapshot of the current cycle. */
  snapshotSharedLister(): SharedLister;
  readonly nominator: PodNominator;
  readonly listers: Listers;
  readonly actions: ClusterActions;
  /** Runs the profile's filters on a node; the first failure, or null. */
  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Result;
  /** Runs the filters as if pods of equal or higher priority nominated to the node were on it too. */
  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Result;
  /** Tells every PreFilter with extensions that a pod was added to the node. */
  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Result;
  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Result;
}

/** Builds a plugin from its pluginConfig args (undefined when none are given) and the handle. */
export type PluginFactory = (args: unknown, handle: Handle) => Plugin;
export type Registry = Map<string, PluginFactory>;

/** Merges registries; a name registered twice is an error, as upstream's Registry.Merge. */
export function mergeRegistries(...registries: Registry[]): Registry {
  const out: Registry = new Map();
  for (const r of registries) {
    for (const [name, f] of r) {
      if (out.has(name)) throw new Error(`a plugin named ${name} already exists`);
      out.set(name, f);
    }
  }
  return out;
}

// Type guards the framework uses to sort a plugin into its extension points.
export const isQueueSort = (p: Plugin): p is QueueSortPlugin => typeof (p as QueueSortPlugin).less === "function";
export const isPreFilter = (p: Plugin): p is PreFilterPlugin => typeof (p as PreFilterPlugin).preFilter === "function";
export const isFilter = (p: Plugin): p is FilterPlugin => typeof (p as FilterPlugin).filter === "function";
export const isPostFilter = (p: Plugin): p is PostFilterPlugin => typeof (p as PostFilterPlugin).postFilter === "function";
export const isPreScore = (p: Plugin): p is PreScorePlugin => typeof (p as PreScorePlugin).preScore === "function";
export const isScore = (p: Plugin): p is ScorePlugin => typeof (p as ScorePlugin).score === "function";
export const isReserve = (p: Plugin): p is ReservePlugin => typeof (p as ReservePlugin).reserve === "function";
export const isPermit = (p: Plugin): p is PermitPlugin => typeof (p as PermitPlugin).permit === "function";
export const isPreBind = (p: Plugin): p is PreBindPlugin => typeof (p as PreBindPlugin).preBind === "function";
export const isBind = (p: Plugin): p is BindPlugin => typeof (p as BindPlugin).bind === "function";
export const isPostBind = (p: Plugin): p is PostBindPlugin => typeof (p as PostBindPlugin).postBind === "function";
