// The scheduler's view of the cluster between cycles (upstream's internal/cache): nodes and the pods
// on them, including pods assumed onto a node before their binding is confirmed. Each NodeInfo sits
// in a list with the most recently changed first, so updateSnapshot copies only what changed since
// the previous cycle: cheap with thousands of nodes and one pod placed per cycle.
import { NO_IMAGES, NodeInfo, podUID, type ImageStateSummary, type Node, type Pod, type Snapshot } from "../framework/index.ts";
import { NodeTree } from "./node-tree.ts";

/** How long an assumed pod whose binding finished may wait for the watch to confirm it (upstream: 30s). */
export const DEFAULT_ASSUMED_POD_TTL_MS = 30_000;

interface Item {
  info: NodeInfo;
  prev: Item | null;
  next: Item | null;
}

interface PodState {
  pod: Pod;
  /** When an assumed pod expires; set once its binding finished. */
  deadline: number | null;
  bindingFinished: boolean;
}

interface ImageState {
  summary: ImageStateSummary;
  nodes: Set<string>;
}

const nodeNameOf = (p: Pod) => p.spec.nodeName ?? "";

export class SchedulerCache {
  private readonly nodes = new Map<string, Item>();
  private head: Item | null = null;
  private readonly tree = new NodeTree();
  private readonly podStates = new Map<string, PodState>();
  private readonly assumed = new Set<string>();
  private readonly images = new Map<string, ImageState>();
  /** A node was removed since the last snapshot update: the snapshot must drop it. */
  private nodesRemoved = false;

  constructor(private readonly ttlMs = DEFAULT_ASSUMED_POD_TTL_MS, private readonly now: () => number = Date.now) {}

  // --- pods ---

  /** Counts the pod on its node (spec.nodeName) before the binding is confirmed. */
  assumePod(pod: Pod): void {
    const key = podUID(pod);
    if (this.podStates.has(key)) throw new Error(`pod ${key} is in the cache, so can't be assumed`);
    this.addToNode(pod);
    this.podStates.set(key, { pod, deadline: null, bindingFinished: false });
    this.assumed.add(key);
  }

  /** Starts the assumed pod's expiry clock: the watch should confirm it within the TTL. */
  finishBinding(pod: Pod): void {
    const key = podUID(pod);
    const s = this.podStates.get(key);
    if (s && this.assumed.has(key)) {
      s.deadline = this.now() + this.ttlMs;
      s.bindingFinished = true;
    }
  }

  /** Drops an assumed pod whose binding failed. */
  forgetPod(pod: Pod): void {
    const key = podUID(pod);
    const s = this.podStates.get(key);
    if (s && nodeNameOf(s.pod) !== nodeNameOf(pod)) {
      throw new Error(`pod ${key} was assumed on ${nodeNameOf(pod)} but assigned to ${nodeNameOf(s.pod)}`);
    }
    if (!s || !this.assumed.has(key)) throw new Error(`pod ${key} wasn't assumed so cannot be forgotten`);
    this.removeFromNode(s.pod);
    this.podStates.delete(key);
    this.assumed.delete(key);
  }

  /** A bound pod from the watch; confirms an assumed one (moving it if it landed elsewhere). */
  addPod(pod: Pod): void {
    const key = podUID(pod);
    const s = this.podStates.get(key);
    if (s && this.assumed.has(key)) {
      if (nodeNameOf(s.pod) !== nodeNameOf(pod)) {
        this.removeFromNode(s.pod);
        this.addToNode(pod);
      } else {
        this.replaceOnNode(s.pod, pod);
      }
      this.assumed.delete(key);
      this.podStates.set(key, { pod, deadline: null, bindingFinished: false });
      return;
    }
    if (s) throw new Error(`pod ${key} was already in added state`);
    // Not known, or expired before the watch confirmed it: add it again.
    this.addToNode(pod);
    this.podStates.set(key, { pod, deadline: null, bindingFinished: false });
  }

  updatePod(oldPod: Pod, newPod: Pod): void {
    const key = podUID(oldPod);
    const s = this.podStates.get(key);
    if (!s || this.assumed.has(key)) throw new Error(`pod ${key} is not added to scheduler cache, so cannot be updated`);
    if (nodeNameOf(s.pod) !== nodeNameOf(newPod)) {
      this.removeFromNode(s.pod);
      this.addToNode(newPod);
    } else {
      this.replaceOnNode(s.pod, newPod);
    }
    s.pod = newPod;
  }

  removePod(pod: Pod): void {
    const key = podUID(pod);
    const s = this.podStates.get(key);
    if (!s) throw new Error(`pod ${key} is not found in scheduler cache, so cannot be removed from it`);
    this.removeFromNode(s.pod);
    this.podStates.delete(key);
    this.assumed.delete(key);
  }

  isAssumedPod(pod: Pod): boolean {
    return this.assumed.has(podUID(pod));
  }

  /** The cached version of the pod (assumed or confirmed). */
  getPod(pod: Pod): Pod | undefined {
    return this.podStates.get(podUID(pod))?.pod;
  }

  /** Expires assumed pods whose binding finished more than the TTL ago; returns them. */
  cleanupAssumedPods(now = this.now()): Pod[] {
    const expired: Pod[] = [];
    for (const key of this.assumed) {
      const s = this.podStates.get(key)!;
      if (!s.bindingFinished || s.deadline === null || now < s.deadline) continue;
      this.removeFromNode(s.pod);
      this.podStates.delete(key);
      this.assumed.delete(key);
      expired.push(s.pod);
    }
    return expired;
  }

  /** Runs cleanupAssumedPods every period (upstream: 1s); returns the stop function. */
  startCleanup(periodMs = 1000, onExpired?: (p: Pod) => void): () => void {
    const t = setInterval(() => {
      for (const p of this.cleanupAssumedPods()) onExpired?.(p);
    }, periodMs);
    return () => clearInterval(t);
  }

  podCount(): number {
    return this.podStates.size;
  }

  assumedPodCount(): number {
    return this.assumed.size;
  }

  private item(nodeName: string): Item {
    let it = this.nodes.get(nodeName);
    if (!it) {
      it = { info: new NodeInfo(), prev: null, next: null };
      this.nodes.set(nodeName, it);
      this.linkHead(it);
    }
    return it;
  }

  private addToNode(pod: Pod): void {
    const it = this.item(nodeNameOf(pod));
    it.info.addPod(pod);
    this.moveToHead(it);
  }

  private removeFromNode(pod: Pod): void {
    const name = nodeNameOf(pod);
    const it = this.nodes.get(name);
    if (!it) return;
    it.info.removePod(pod);
    // A node already deleted whose last pod left goes away entirely.
    if (!it.info.node && it.info.pods.length === 0) this.dropItem(name, it);
    else this.moveToHead(it);
  }

  private replaceOnNode(oldPod: Pod, newPod: Pod): void {
    const it = this.item(nodeNameOf(newPod));
    it.info.removePod(oldPod);
    it.info.addPod(newPod);
    this.moveToHead(it);
  }

  // --- nodes ---

  addNode(node: Node): void {
    const name = node.metadata.name ?? "";
    const it = this.item(name);
    if (it.info.node) this.removeImages(it.info.node);
    this.tree.add(node);
    it.info.setNode(node);
    this.addImages(node, it.info);
    this.moveToHead(it);
  }

  updateNode(_oldNode: Node, newNode: Node): void {
    const it = this.item(newNode.metadata.name ?? "");
    if (it.info.node) {
      this.removeImages(it.info.node);
      this.tree.update(it.info.node, newNode);
    } else {
      this.tree.add(newNode);
    }
    it.info.setNode(newNode);
    this.addImages(newNode, it.info);
    this.moveToHead(it);
  }

  /** Removes the node; its NodeInfo stays while pods still name it (they leave through their own deletes). */
  removeNode(node: Node): void {
    const name = node.metadata.name ?? "";
    const it = this.nodes.get(name);
    if (!it) throw new Error(`node ${name} is not found`);
    if (it.info.node) this.removeImages(it.info.node);
    this.tree.remove(node);
    this.nodesRemoved = true;
    it.info.removeNode();
    if (it.info.pods.length === 0) this.dropItem(name, it);
    else this.moveToHead(it);
  }

  nodeCount(): number {
    return this.tree.numNodes;
  }

  private addImages(node: Node, info: NodeInfo): void {
    const states = new Map<string, ImageStateSummary>();
    const nodeName = node.metadata.name ?? "";
    for (const img of node.status?.images ?? []) {
      for (const name of img.names ?? []) {
        let s = this.images.get(name);
        if (!s) this.images.set(name, (s = { summary: { size: img.sizeBytes ?? 0, numNodes: 0 }, nodes: new Set() }));
        s.nodes.add(nodeName);
        s.summary.numNodes = s.nodes.size;
        states.set(name, s.summary);
      }
    }
    info.imageStates = states.size ? states : NO_IMAGES;
  }

  private removeImages(node: Node): void {
    const nodeName = node.metadata.name ?? "";
    for (const img of node.status?.images ?? []) {
      for (const name of img.names ?? []) {
        const s = this.images.get(name);
        if (!s) continue;
        s.nodes.delete(nodeName);
        s.summary.numNodes = s.nodes.size;
        if (s.nodes.size === 0) this.images.delete(name);
      }
    }
  }

  // --- the recency list ---

  private linkHead(it: Item): void {
    it.prev = null;
    it.next = this.head;
    if (this.head) this.head.prev = it;
    this.head = it;
  }

  private unlink(it: Item): void {
    if (it.prev) it.prev.next = it.next;
    else if (this.head === it) this.head = it.next;
    if (it.next) it.next.prev = it.prev;
    it.prev = it.next = null;
  }

  private moveToHead(it: Item): void {
    if (this.head === it) return;
    this.unlink(it);
    this.linkHead(it);
  }

  private dropItem(name: string, it: Item): void {
    this.unlink(it);
    this.nodes.delete(name);
  }

  // --- snapshots ---

  /**
   * Brings the snapshot up to date: copies the NodeInfos changed since its generation (in place,
   * so lists holding them stay valid), drops deleted nodes, and rebuilds the lists only when the
   * set of nodes or of nodes with affinity pods changed.
   */
  updateSnapshot(snapshot: Snapshot): void {
    const since = snapshot.generation;
    let relist = false;
    let affinityChanged = false;
    for (let it = this.head; it && it.info.generation > since; it = it.next) {
      const info = it.info;
      if (!info.node) continue;
      const name = info.name;
      let existing = snapshot.nodeInfoMap.get(name);
      if (!existing) {
        existing = new NodeInfo();
        snapshot.nodeInfoMap.set(name, existing);
        relist = true;
      }
      const copy = info.clone();
      if ((existing.podsWithAffinity.length > 0) !== (copy.podsWithAffinity.length > 0)) affinityChanged = true;
      if ((existing.podsWithRequiredAntiAffinity.length > 0) !== (copy.podsWithRequiredAntiAffinity.length > 0)) affinityChanged = true;
      Object.assign(existing, copy);
    }
    if (this.head) snapshot.generation = this.head.info.generation;
    if (this.nodesRemoved || snapshot.nodeInfoMap.size > this.tree.numNodes) {
      for (const name of snapshot.nodeInfoMap.keys()) {
        if (!this.nodes.get(name)?.info.node) snapshot.nodeInfoMap.delete(name);
      }
      this.nodesRemoved = false;
      relist = true;
    }
    if (relist) {
      snapshot.nodeInfoList = this.tree.list().map((n) => snapshot.nodeInfoMap.get(n)!);
      affinityChanged = true;
    }
    if (affinityChanged) {
      snapshot.havePodsWithAffinityNodeInfoList = snapshot.nodeInfoList.filter((n) => n.podsWithAffinity.length > 0);
      snapshot.havePodsWithRequiredAntiAffinityNodeInfoList = snapshot.nodeInfoList.filter((n) => n.podsWithRequiredAntiAffinity.length > 0);
    }
  }
}
