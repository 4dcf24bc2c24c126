// The cluster as one scheduling cycle sees it (upstream's cache Snapshot): NodeInfos by name and in
// a list, plus the nodes holding pods with affinity or required anti-affinity, which InterPodAffinity
// walks instead of every node. The cache refreshes it in place between cycles.
import type { Node, Pod } from "./api.ts";
import { NodeInfo } from "./node-info.ts";

export interface NodeInfoLister {
  /** Every node with a Node object, in the snapshot's order. */
  list(): NodeInfo[];
  /** Nodes with at least one pod that has (anti-)affinity. */
  havePodsWithAffinityList(): NodeInfo[];
  /** Nodes with at least one pod that has required anti-affinity. */
  havePodsWithRequiredAntiAffinityList(): NodeInfo[];
  get(nodeName: string): NodeInfo | undefined;
}

/** What a plugin reads of the cluster in a cycle (upstream's SharedLister). */
export interface SharedLister {
  nodeInfos(): NodeInfoLister;
}

export class Snapshot implements SharedLister, NodeInfoLister {
  nodeInfoMap = new Map<string, NodeInfo>();
  nodeInfoList: NodeInfo[] = [];
  havePodsWithAffinityNodeInfoList: NodeInfo[] = [];
  havePodsWithRequiredAntiAffinityNodeInfoList: NodeInfo[] = [];
  /** The largest NodeInfo generation copied in; the cache copies only newer ones. */
  generation = 0;

  /** A snapshot of these nodes with these pods on them (pods name their node in spec.nodeName). */
  static of(pods: Pod[], nodes: Node[]): Snapshot {
    const s = new Snapshot();
    const byName = new Map<string, NodeInfo>();
    for (const n of nodes) byName.set(n.metadata.name ?? "", new NodeInfo(n));
    for (const p of pods) byName.get(p.spec.nodeName ?? "")?.addPod(p);
    s.nodeInfoMap = byName;
    s.rebuildLists();
    return s;
  }

  /** Rebuilds the three lists from the map, in the map's order. */
  rebuildLists(): void {
    this.nodeInfoList = [];
    this.havePodsWithAffinityNodeInfoList = [];
    this.havePodsWithRequiredAntiAffinityNodeInfoList = [];
    for (const ni of this.nodeInfoMap.values()) this.listNode(ni);
  }

  private listNode(ni: NodeInfo): void {
    if (!ni.node) return;
    this.nodeInfoList.push(ni);
    if (ni.podsWithAffinity.length > 0) this.havePodsWithAffinityNodeInfoList.push(ni);
    if (ni.podsWithRequiredAntiAffinity.length > 0) this.havePodsWithRequiredAntiAffinityNodeInfoList.push(ni);
  }

  nodeInfos(): NodeInfoLister {
    return this;
  }

  list(): NodeInfo[] {
    return this.nodeInfoList;
  }

  havePodsWithAffinityList(): NodeInfo[] {
    return this.havePodsWithAffinityNodeInfoList;
  }

  havePodsWithRequiredAntiAffinityList(): NodeInfo[] {
    return this.havePodsWithRequiredAntiAffinityNodeInfoList;
  }

  get(nodeName: string): NodeInfo | undefined {
    return this.nodeInfoMap.get(nodeName);
  }

  numNodes(): number {
    return this.nodeInfoList.length;
  }
}
