// A profile's plugins wired into their extension points and run in order (upstream's
// frameworkImpl). The framework is also the Handle its plugins get.
import { podUID, type Pod } from "./api.ts";
import type { CycleState, StateData } from "./cycle-state.ts";
import {
  isBind, isFilter, isPermit, isPostBind, isPostFilter, isPreBind, isPreFilter, isPreScore, isQueueSort, isReserve, isScore,
  MAX_NODE_SCORE, MAX_TOTAL_SCORE, MIN_NODE_SCORE,
  type BindPlugin, type ClusterActions, type FilterPlugin, type Handle, type Listers, type NodeScore, type NodeToStatusMap,
  type PermitPlugin, type Plugin, type PodNominator, type PostBindPlugin, type PostFilterPlugin, type PostFilterResult,
  type PreBindPlugin, type PreFilterPlugin, type PreScorePlugin, type QueueSortPlugin, type Registry, type ReservePlugin, type ScorePlugin,
} from "./interface.ts";
import type { NodeInfo } from "./node-info.ts";
import type { PodInfo } from "./pod-info.ts";
import { Snapshot, type SharedLister } from "./snapshot.ts";
import { Code, errorStatus, isSuccess, Status, type Result } from "./status.ts";

/** A plugin named in an extension point, as KubeSchedulerConfiguration lists it. */
export interface PluginRef { name: string; weight?: number }

/** The extension points, in configuration order, with the interface names upstream's errors use. */
export const EXTENSION_POINTS = [
  ["queueSort", "QueueSortPlugin", isQueueSort],
  ["preFilter", "PreFilterPlugin", isPreFilter],
  ["filter", "FilterPlugin", isFilter],
  ["postFilter", "PostFilterPlugin", isPostFilter],
  ["preScore", "PreScorePlugin", isPreScore],
  ["score", "ScorePlugin", isScore],
  ["reserve", "ReservePlugin", isReserve],
  ["permit", "PermitPlugin", isPermit],
  ["preBind", "PreBindPlugin", isPreBind],
  ["bind", "BindPlugin", isBind],
  ["postBind", "PostBindPlugin", isPostBind],
] as const;

export type ExtensionPoint = (typeof EXTENSION_POINTS)[number][0];
/** A profile's plugins after defaults are merged: for each extension point, the enabled plugins. */
export type Plugins = Partial<Record<ExtensionPoint, PluginRef[]>>;

export interface FrameworkOptions {
  profileName: string;
  registry: Registry;
  plugins: Plugins;
  /** pluginConfig args by plugin name. */
  pluginArgs?: Map<string, unknown>;
  nominator: PodNominator;
  listers: Listers;
  actions: ClusterActions;
}

const priorityOf = (p: Pod) => p.spec.priority ?? 0;

/** The filters that apply to the cycle's pod, chosen after PreFilter. */
const ACTIVE_FILTERS = "framework/ActiveFilters";
class ActiveFilters implements StateData {
  constructor(readonly filters: FilterPlugin[]) {}
  clone() { return this; }
}

export class Framework implements Handle {
  readonly profileName: string;
  readonly nominator: PodNominator;
  readonly listers: Listers;
  readonly actions: ClusterActions;
  queueSort: QueueSortPlugin | null = null;
  preFilter: PreFilterPlugin[] = [];
  filter: FilterPlugin[] = [];
  postFilter: PostFilterPlugin[] = [];
  preScore: PreScorePlugin[] = [];
  score: ScorePlugin[] = [];
  scoreWeights: number[] = [];
  reserve: ReservePlugin[] = [];
  permit: PermitPlugin[] = [];
  preBind: PreBindPlugin[] = [];
  bind: BindPlugin[] = [];
  postBind: PostBindPlugin[] = [];
  private snapshot: SharedLister = new Snapshot();
  private readonly scratch: NodeScore[] = [];
  private readonly totals: NodeScore[] = [];
  // The active filters of the cycle whose PreFilter ran last, kept at hand for the per-node loop
  // (a keyed CycleState read per node costs more than the filters themselves); clones read the state.
  private cycleState: CycleState | null = null;
  private cycleFilters: FilterPlugin[] = [];

  /** Builds the plugins the profile enables; throws with upstream's message when one is unknown. */
  constructor(opts: FrameworkOptions) {
    this.profileName = opts.profileName;
    this.nominator = opts.nominator;
    this.listers = opts.listers;
    this.actions = opts.actions;
    const needed = new Set<string>();
    for (const [point] of EXTENSION_POINTS) for (const p of opts.plugins[point] ?? []) needed.add(p.name);
    const instances = new Map<string, Plugin>();
    for (const [name, factory] of opts.registry) {
      if (!needed.has(name)) continue;
      try {
        instances.set(name, factory(opts.pluginArgs?.get(name), this));
      } catch (e) {
        throw new Error(`initializing plugin "${name}": ${(e as Error).message}`);
      }
    }
    let totalWeight = 0;
    for (const [point, typeName, implementsPoint] of EXTENSION_POINTS) {
      const seen = new Set<string>();
      for (const ref of opts.plugins[point] ?? []) {
        const pl = instances.get(ref.name);
        if (!pl) throw new Error(`${typeName} "${ref.name}" does not exist`);
        if (!implementsPoint(pl)) throw new Error(`plugin "${ref.name}" does not extend ${typeName} plugin`);
        if (seen.has(ref.name)) throw new Error(`plugin "${ref.name}" already registered as "${typeName}"`);
        seen.add(ref.name);
        if (point === "queueSort") this.queueSort = pl as QueueSortPlugin;
        else if (point === "score") {
          // A weight of 0 means "unset": upstream counts it as 1.
          const weight = ref.weight || 1;
          if (weight * MAX_NODE_SCORE > MAX_TOTAL_SCORE - totalWeight) throw new Error("total score of Score plugins could overflow");
          totalWeight += weight * MAX_NODE_SCORE;
          this.score.push(pl as ScorePlugin);
          this.scoreWeights.push(weight);
        } else (this[point] as Plugin[]).push(pl);
      }
    }
    if (!this.queueSort) throw new Error("no queue sort plugin is enabled");
    if ((opts.plugins.queueSort ?? []).length > 1) throw new Error("only one queue sort plugin can be enabled");
    if (this.bind.length === 0) throw new Error("at least one bind plugin is needed");
  }

  /** Points the plugins at the snapshot of the cycle about to run. */
  setSnapshot(s: SharedLister): void {
    this.snapshot = s;
  }

  snapshotSharedLister(): SharedLister {
    return this.snapshot;
  }

  /** The names of the plugins enabled at an extension point, for tests and --write-config-to checks. */
  pluginNames(point: ExtensionPoint): string[] {
    if (point === "queueSort") return this.queueSort ? [this.queueSort.name] : [];
    return (this[point] as Plugin[]).map((p) => p.name);
  }

  less = (a: Parameters<QueueSortPlugin["less"]>[0], b: Parameters<QueueSortPlugin["less"]>[1]): boolean => this.queueSort!.less(a, b);

  runPreFilterPlugins(state: CycleState, pod: Pod): Result {
    for (const pl of this.preFilter) {
      const s = guard(() => pl.preFilter(state, pod));
      if (isSuccess(s)) continue;
      if (s.isUnschedulable()) return s.withFailedPlugin(pl.name);
      return new Status(Code.Error, `running PreFilter plugin "${pl.name}": ${s.message()}`).withFailedPlugin(pl.name);
    }
    const active = this.filter.filter((pl) => !pl.filterSkips?.(pod));
    state.write(ACTIVE_FILTERS, new ActiveFilters(active));
    this.cycleState = state;
    this.cycleFilters = active;
    return null;
  }

  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Result {
    const filters = state === this.cycleState ? this.cycleFilters : state.read<ActiveFilters>(ACTIVE_FILTERS)?.filters ?? this.filter;
    for (let i = 0; i < filters.length; i++) {
      const pl = filters[i];
      let s: Result;
      try { s = pl.filter(state, pod, nodeInfo); } catch (e) { s = errorStatus(e); }
      if (s === null || s.code === Code.Success) continue;
      if (s.isUnschedulable()) return s.withFailedPlugin(pl.name);
      return new Status(Code.Error, `running "${pl.name}" filter plugin for pod "${pod.metadata.name}": ${s.message()}`).withFailedPlugin(pl.name);
    }
    return null;
  }

  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Result {
    // Nominated pods of equal or higher priority count as already on the node; the pod must fit
    // both with them (for their sake) and without them (in case they end up elsewhere).
    const nominated = nodeInfo.node ? this.nominator.nominatedPodsForNode(nodeInfo.name) : [];
    if (nominated.length > 0) {
      const withNominated = this.addNominatedPods(state, pod, nodeInfo, nominated);
      if (withNominated instanceof Status) return withNominated;
      if (withNominated) {
        const s = this.runFilterPlugins(withNominated.state, pod, withNominated.nodeInfo);
        if (!isSuccess(s)) return s;
      }
    }
    return this.runFilterPlugins(state, pod, nodeInfo);
  }

  private addNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo, nominated: PodInfo[]):
    { state: CycleState; nodeInfo: NodeInfo } | Status | null {
    let out: { state: CycleState; nodeInfo: NodeInfo } | null = null;
    const uid = podUID(pod);
    for (const pi of nominated) {
      if (priorityOf(pi.pod) < priorityOf(pod) || podUID(pi.pod) === uid) continue;
      out ??= { state: state.clone(), nodeInfo: nodeInfo.clone() };
      out.nodeInfo.addPodInfo(pi);
      const s = this.runPreFilterExtensionAddPod(out.state, pod, pi, out.nodeInfo);
      if (!isSuccess(s)) return s;
    }
    return out;
  }

  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Result {
    for (const pl of this.preFilter) {
      const ext = pl.preFilterExtensions();
      if (!ext) continue;
      const s = guard(() => ext.addPod(state, podToSchedule, podInfoToAdd, nodeInfo));
      if (!isSuccess(s)) return new Status(Code.Error, `running AddPod on PreFilter plugin "${pl.name}": ${s.message()}`);
    }
    return null;
  }

  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Result {
    for (const pl of this.preFilter) {
      const ext = pl.preFilterExtensions();
      if (!ext) continue;
      const s = guard(() => ext.removePod(state, podToSchedule, podInfoToRemove, nodeInfo));
      if (!isSuccess(s)) return new Status(Code.Error, `running RemovePod on PreFilter plugin "${pl.name}": ${s.message()}`);
    }
    return null;
  }

  /** Runs PostFilter plugins until one succeeds or fails with an error. */
  runPostFilterPlugins(state: CycleState, pod: Pod, statuses: NodeToStatusMap): { result: PostFilterResult | null; status: Result } {
    const reasons: string[] = [];
    for (const pl of this.postFilter) {
      let r: { result: PostFilterResult | null; status: Result };
      try { r = pl.postFilter(state, pod, statuses); } catch (e) { r = { result: null, status: errorStatus(e) }; }
      if (isSuccess(r.status)) return r;
      if (!r.status.isUnschedulable()) return { result: null, status: r.status.withFailedPlugin(pl.name) };
      reasons.push(...r.status.reasons);
    }
    return { result: null, status: new Status(Code.Unschedulable, ...reasons) };
  }

  runPreScorePlugins(state: CycleState, pod: Pod, nodes: NodeInfo[]): Result {
    for (const pl of this.preScore) {
      const s = guard(() => pl.preScore(state, pod, nodes));
      if (!isSuccess(s)) return new Status(Code.Error, `running PreScore plugin "${pl.name}": ${s.message()}`);
    }
    return null;
  }

  /**
   * Scores the nodes with every Score plugin, normalizes, weighs and sums: the nodes' totals, in
   * the order given (valid until the next call), or an Error status.
   */
  runScorePlugins(state: CycleState, pod: Pod, nodes: NodeInfo[]): { scores: NodeScore[]; status: Result } {
    // Both arrays are kept between cycles (only names and scores change): the totals are read by
    // the caller before the next cycle scores again.
    const totals = this.totals;
    const scratch = this.scratch;
    for (let i = 0; i < nodes.length; i++) {
      const name = nodes[i].name;
      if (i < totals.length) {
        totals[i].name = name;
        totals[i].score = 0;
        scratch[i].name = name;
      } else {
        totals.push({ name, score: 0 });
        scratch.push({ name, score: 0 });
      }
    }
    totals.length = nodes.length;
    scratch.length = nodes.length;
    for (let p = 0; p < this.score.length; p++) {
      const pl = this.score[p];
      if (pl.scoreSkips?.(pod)) continue;
      try {
        if (pl.scoreNodes) pl.scoreNodes(state, pod, nodes, scratch);
        else for (let i = 0; i < nodes.length; i++) scratch[i].score = pl.score(state, pod, nodes[i]);
      } catch (e) {
        return { scores: [], status: new Status(Code.Error, `running Score plugin "${pl.name}": ${(e as Error).message}`) };
      }
      const ext = pl.scoreExtensions();
      if (ext) {
        const s = guard(() => ext.normalizeScore(state, pod, scratch));
        if (!isSuccess(s)) return { scores: [], status: new Status(Code.Error, `running Normalize on Score plugin "${pl.name}": ${s.message()}`) };
      }
      const w = this.scoreWeights[p];
      for (let i = 0; i < nodes.length; i++) {
        const v = scratch[i].score;
        if (v > MAX_NODE_SCORE || v < MIN_NODE_SCORE) {
          return { scores: [], status: new Status(Code.Error, `applying score defaultWeights on Score plugins: plugin "${pl.name}" returns an invalid score ${v}, it should in the range of [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`) };
        }
        totals[i].score += v * w;
      }
    }
    return { scores: totals, status: null };
  }

  runReservePluginsReserve(state: CycleState, pod: Pod, nodeName: string): Result {
    for (const pl of this.reserve) {
      const s = guard(() => pl.reserve(state, pod, nodeName));
      if (!isSuccess(s)) return new Status(Code.Error, `running Reserve plugin "${pl.name}": ${s.message()}`).withFailedPlugin(pl.name);
    }
    return null;
  }

  /** Undoes Reserve, in reverse order. */
  runReservePluginsUnreserve(state: CycleState, pod: Pod, nodeName: string): void {
    for (let i = this.reserve.length - 1; i >= 0; i--) this.reserve[i].unreserve(state, pod, nodeName);
  }

  /** Runs Permit plugins; none in-tree waits, so a Wait is refused rather than parked. */
  runPermitPlugins(state: CycleState, pod: Pod, nodeName: string): Result {
    for (const pl of this.permit) {
      const { status: s } = pl.permit(state, pod, nodeName);
      if (isSuccess(s)) continue;
      if (s.isUnschedulable()) return new Status(s.code, `rejected pod "${pod.metadata.name}" by permit plugin "${pl.name}": ${s.message()}`).withFailedPlugin(pl.name);
      return new Status(Code.Error, `running Permit plugin "${pl.name}": ${s.message()}`).withFailedPlugin(pl.name);
    }
    return null;
  }

  async runPreBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<Result> {
    for (const pl of this.preBind) {
      const s = await guardAsync(() => pl.preBind(state, pod, nodeName));
      if (!isSuccess(s)) return new Status(Code.Error, `running PreBind plugin "${pl.name}": ${s.message()}`);
    }
    return null;
  }

  /** Runs Bind plugins until one does not Skip; Skip from all of them is returned as Skip. */
  async runBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<Result> {
    for (const pl of this.bind) {
      const s = await guardAsync(() => pl.bind(state, pod, nodeName));
      if (s !== null && s.code === Code.Skip) continue;
      if (!isSuccess(s)) return new Status(Code.Error, `running Bind plugin "${pl.name}": ${s.message()}`);
      return null;
    }
    return new Status(Code.Skip);
  }

  runPostBindPlugins(state: CycleState, pod: Pod, nodeName: string): void {
    for (const pl of this.postBind) pl.postBind(state, pod, nodeName);
  }
}

/** A plugin that throws returns an Error status. */
function guard(f: () => Result): Result {
  try {
    return f();
  } catch (e) {
    return errorStatus(e);
  }
}

async function guardAsync(f: () => Promise<Result>): Promise<Result> {
  try {
    return await f();
  } catch (e) {
    return errorStatus(e);
  }
}
