// Pods, nodes and frameworks for the unit tests of PodTopologySpread, InterPodAffinity and
// DefaultPreemption: a profile over a snapshot, with listers and actions the tests fill and read.
import {
  CycleState, Framework, inTreeRegistry, Nominator, profilePlugins, Snapshot,
  type AnyObject, type ClusterActions, type LabelSelector, type Labels, type Listers, type Node, type NodeInfo, type NodeToStatusMap,
  type Pod, type PodSpec, type Result,
} from "../../pkg/scheduler/index.ts";
import type { KubeSchedulerProfile } from "../../pkg/scheduler/config/types.ts";

type Profile = Partial<KubeSchedulerProfile>;

let uid = 0;

export interface PodOpts {
  ns?: string;
  labels?: Labels;
  node?: string;
  priority?: number;
  cpu?: string;
  spec?: Partial<PodSpec>;
  status?: Pod["status"];
  terminating?: boolean;
}

export function pod(name: string, o: PodOpts = {}): Pod {
  return {
    metadata: {
      name, namespace: o.ns ?? "default", uid: `uid-${name}-${++uid}`, labels: o.labels,
      ...(o.terminating ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    spec: {
      containers: [{ name: "c", image: "nginx", resources: o.cpu ? { requests: { cpu: o.cpu } } : {} }],
      ...(o.node ? { nodeName: o.node } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...o.spec,
    },
    ...(o.status ? { status: o.status } : {}),
  };
}

/** A node with a hostname label, the given labels and (by default) 4 CPUs. */
export function node(name: string, labels: Labels = {}, cpu = "4"): Node {
  return {
    metadata: { name, uid: `node-${name}`, labels: { "kubernetes.io/hostname": name, ...labels } },
    spec: {},
    status: { allocatable: { cpu, memory: "8Gi", pods: "110" } },
  };
}

export const zone = (z: string) => ({ "topology.kubernetes.io/zone": z });

export class TestListers implements Listers {
  pdbs: AnyObject[] = [];
  namespaces = new Map<string, Labels>();
  owners = new Map<string, LabelSelector[]>();
  persistentVolumeClaim() { return undefined; }
  persistentVolume() { return undefined; }
  storageClass() { return undefined; }
  podDisruptionBudgets() { return this.pdbs; }
  namespaceLabels(name: string) { return this.namespaces.get(name); }
  selectorsForPod(p: Pod) { return this.owners.get(p.metadata.name ?? "") ?? []; }
}

export class TestActions implements ClusterActions {
  deleted: string[] = [];
  events: string[] = [];
  nominations: string[] = [];
  async bind() {}
  async deletePod(p: Pod) { this.deleted.push(p.metadata.name!); }
  async setNominatedNodeName(p: Pod, nodeName: string) { this.nominations.push(`${p.metadata.name}=${nodeName}`); }
  async annotateClaim() {}
  event(p: Pod, type: string, reason: string, message: string) { this.events.push(`${p.metadata.name} ${type} ${reason}: ${message}`); }
}

export interface Env {
  fwk: Framework;
  snapshot: Snapshot;
  listers: TestListers;
  actions: TestActions;
  nominator: Nominator;
}

/** A framework for the default profile (or the one given) over a snapshot of these pods and nodes. */
export function env(pods: Pod[], nodes: Node[], profile: Profile = {}, listers = new TestListers()): Env {
  const registry = inTreeRegistry();
  const pluginArgs = new Map<string, unknown>((profile.pluginConfig ?? []).map((c) => [c.name, c.args]));
  const nominator = new Nominator();
  const actions = new TestActions();
  const fwk = new Framework({
    profileName: "default-scheduler", registry, plugins: profilePlugins(profile, registry), pluginArgs, nominator, listers, actions,
  });
  const snapshot = Snapshot.of(pods, nodes);
  fwk.setSnapshot(snapshot);
  return { fwk, snapshot, listers, actions, nominator };
}

/** What one status says, for comparing in tables: "" for success. */
export function describe(s: Result): string {
  if (s === null || s.code === 0) return "";
  return `${s.code}: ${s.message()}`;
}

/** Runs PreFilter, then the filters on every node: the state and each node's outcome. */
export function filterAll(e: Env, p: Pod): { state: CycleState; pre: Result; results: Record<string, string>; statuses: NodeToStatusMap } {
  const state = new CycleState();
  const pre = e.fwk.runPreFilterPlugins(state, p);
  const results: Record<string, string> = {};
  const statuses: NodeToStatusMap = new Map();
  for (const ni of e.snapshot.list()) {
    const s = pre ?? e.fwk.runFilterPluginsWithNominatedPods(state, p, ni);
    results[ni.name] = describe(s);
    if (s) statuses.set(ni.name, s);
  }
  return { state, pre, results, statuses };
}

/** The normalized scores of one score plugin for the nodes, after its PreScore. */
export function scoresOf(e: Env, pluginName: string, p: Pod, nodes: NodeInfo[] = e.snapshot.list()): Record<string, number> {
  const state = new CycleState();
  const pl = e.fwk.score.find((x) => x.name === pluginName)!;
  const pre = e.fwk.preScore.find((x) => x.name === pluginName);
  if (pre) {
    const s = pre.preScore(state, p, nodes);
    if (s) throw new Error(s.message());
  }
  const scores = nodes.map((n) => ({ name: n.name, score: pl.score(state, p, n) }));
  const s = pl.scoreExtensions()?.normalizeScore(state, p, scores);
  if (s) throw new Error(s.message());
  return Object.fromEntries(scores.map((x) => [x.name, x.score]));
}
