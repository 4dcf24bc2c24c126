// Pods, nodes and a framework for the scheduler's unit tests and benchmark.
import {
  buildProfiles, CycleState, inTreeRegistry, Nominator,
  type AnyObject, type ClusterActions, type Framework, type Listers, type Node, type NodeInfo, type Pod, type ProfilesConfig,
  type ResourceList, type Status,
} from "../../pkg/scheduler/index.ts";

let uid = 0;

export interface PodOpts {
  ns?: string;
  requests?: ResourceList;
  priority?: number;
  nodeName?: string;
  labels?: Record<string, string>;
  spec?: Partial<Pod["spec"]>;
}

export function makePod(name: string, o: PodOpts = {}): Pod {
  return {
    metadata: { name, namespace: o.ns ?? "default", uid: `uid-${name}-${++uid}`, labels: o.labels },
    spec: {
      containers: [{ name: "c", image: "nginx", resources: o.requests ? { requests: o.requests } : {} }],
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...o.spec,
    },
  };
}

export interface NodeOpts {
  allocatable?: ResourceList;
  labels?: Record<string, string>;
  spec?: Node["spec"];
  images?: { names: string[]; sizeBytes: number }[];
}

export function makeNode(name: string, o: NodeOpts = {}): Node {
  return {
    metadata: { name, uid: `node-${name}`, labels: { "kubernetes.io/hostname": name, ...o.labels } },
    spec: o.spec ?? {},
    status: { allocatable: o.allocatable ?? { cpu: "4", memory: "8Gi", pods: "110" }, ...(o.images ? { images: o.images } : {}) },
  };
}

/** Listers over plain maps the tests fill. */
export class FakeListers implements Listers {
  pvcs = new Map<string, AnyObject>();
  pvs = new Map<string, AnyObject>();
  classes = new Map<string, AnyObject>();
  csiNodes = new Map<string, AnyObject>();
  persistentVolumeClaim(ns: string, name: string) { return this.pvcs.get(`${ns}/${name}`); }
  persistentVolume(name: string) { return this.pvs.get(name); }
  storageClass(name: string) { return this.classes.get(name); }
  podDisruptionBudgets() { return []; }
  namespaceLabels() { return undefined; }
  csiNode(name: string) { return this.csiNodes.get(name); }
}

/** Records what plugins asked the cluster to do. */
export class FakeActions implements ClusterActions {
  bound: [string, string][] = [];
  annotated: string[] = [];
  failBind = false;
  async bind(pod: Pod, nodeName: string) {
    if (this.failBind) throw new Error("pods \"x\" is forbidden");
    this.bound.push([pod.metadata.name!, nodeName]);
  }
  async deletePod() {}
  async setNominatedNodeName() {}
  async annotateClaim(ns: string, name: string, key: string, value: string) { this.annotated.push(`${ns}/${name} ${key}=${value}`); }
  event() {}
}

/** The default profile (or the config's first) over the in-tree registry. */
export function makeFramework(config: ProfilesConfig = {}, listers = new FakeListers(), actions = new FakeActions()): Framework {
  const profiles = buildProfiles(config, { registry: inTreeRegistry(), nominator: new Nominator(), listers, actions });
  return profiles.values().next().value!;
}

/** Builds one in-tree plugin with its args, on a default framework's handle. */
export function plugin(name: string, args?: unknown, fwk = makeFramework()): any {
  return inTreeRegistry().get(name)!(args, fwk);
}

/** Runs a plugin's PreFilter (if any) and Filter for the pod on the node; the status or null. */
export function runFilter(pl: any, pod: Pod, nodeInfo: NodeInfo): Status | null {
  const state = new CycleState();
  if (pl.preFilter) {
    const s = pl.preFilter(state, pod);
    if (s) return s;
  }
  return pl.filter(state, pod, nodeInfo);
}

/** Runs a plugin's PreScore (if any), Score over the nodes and NormalizeScore: the final scores. */
export function runScore(pl: any, pod: Pod, nodeInfos: NodeInfo[]): number[] {
  const state = new CycleState();
  pl.preScore?.(state, pod, nodeInfos);
  const scores = nodeInfos.map((n) => ({ name: n.name, score: pl.score(state, pod, n) }));
  pl.scoreExtensions()?.normalizeScore(state, pod, scores);
  return scores.map((s) => s.score);
}
