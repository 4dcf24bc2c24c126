// What the scheduler knows of one node: the node, the pods on it (assumed ones included), and the
// sums the filters read (upstream's framework.NodeInfo). Every change takes a new generation so the
// snapshot copies only the nodes that changed since the last cycle.
import type { Node, Pod } from "./api.ts";
import { HostPortInfo } from "./host-ports.ts";
import { PodInfo } from "./pod-info.ts";
import { podRequests, Resource } from "./resource.ts";
import { podUID } from "./api.ts";

let generation = 0;
/** A number larger than every generation handed out before. */
export const nextGeneration = () => ++generation;

export interface ImageStateSummary {
  /** Size of the image in bytes. */
  size: number;
  /** How many nodes hold it. */
  numNodes: number;
}

/** The image states of a node that lists no images: one shared map, never written. */
export const NO_IMAGES: ReadonlyMap<string, ImageStateSummary> = new Map();
/** The allocatable of a NodeInfo without a node: shared, as every allocatable is never changed in place. */
const NO_ALLOCATABLE: Readonly<Resource> = new Resource();

export class NodeInfo {
  node: Node | null = null;
  /** The node's name ("" without a Node object), kept as a field: the per-node loops read it often. */
  name = "";
  // Flat copies of the numbers NodeResourcesFit and the allocation scores read for every node of
  // every cycle, next to the name: one object to read instead of four (kept in step by setNode
  // and account; the Resources below stay the full record, scalar resources included). The
  // non-zero requests (requests with the default CPU and memory of containers that request none)
  // are only these two numbers.
  /** pods.length. */
  numPods = 0;
  allocatableMilliCPU = 0;
  allocatableMemory = 0;
  allocatableEphemeralStorage = 0;
  allowedPodNumber = 0;
  requestedMilliCPU = 0;
  requestedMemory = 0;
  requestedEphemeralStorage = 0;
  nonZeroRequestedMilliCPU = 0;
  nonZeroRequestedMemory = 0;
  pods: PodInfo[] = [];
  podsWithAffinity: PodInfo[] = [];
  podsWithRequiredAntiAffinity: PodInfo[] = [];
  usedPorts = new HostPortInfo();
  /** Sum of the pods' requests. */
  requested = new Resource();
  /** The node's allocatable, replaced whole by setNode (never changed in place: copies share it). */
  allocatable = NO_ALLOCATABLE;
  /** Images on the node by name (as status.images lists them), with how widely each is spread. */
  imageStates = NO_IMAGES;
  generation = nextGeneration();

  constructor(node?: Node | null, ...pods: Pod[]) {
    if (node) this.setNode(node);
    for (const p of pods) this.addPod(p);
  }

  setNode(node: Node): void {
    this.node = node;
    this.name = node.metadata.name ?? "";
    const a = (this.allocatable = Resource.fromList(node.status?.allocatable));
    this.allocatableMilliCPU = a.milliCPU;
    this.allocatableMemory = a.memory;
    this.allocatableEphemeralStorage = a.ephemeralStorage;
    this.allowedPodNumber = a.allowedPodNumber;
    this.generation = nextGeneration();
  }

  /** Drops the node while pods may still point at it (they leave later through their own events). */
  removeNode(): void {
    this.node = null;
    this.name = "";
    this.generation = nextGeneration();
  }

  addPod(pod: Pod): void {
    this.addPodInfo(new PodInfo(pod));
  }

  addPodInfo(pi: PodInfo): void {
    this.pods.push(pi);
    if (pi.hasAffinity) this.podsWithAffinity.push(pi);
    if (pi.hasRequiredAntiAffinity) this.podsWithRequiredAntiAffinity.push(pi);
    this.account(pi.pod, 1);
  }

  /** Removes the pod with this pod's uid; false if it is not here. */
  removePod(pod: Pod): boolean {
    const uid = podUID(pod);
    const i = this.pods.findIndex((p) => podUID(p.pod) === uid);
    if (i < 0) return false;
    const old = this.pods[i].pod;
    this.pods[i] = this.pods[this.pods.length - 1];
    this.pods.pop();
    const drop = (list: PodInfo[]) => {
      const j = list.findIndex((p) => podUID(p.pod) === uid);
      if (j >= 0) { list[j] = list[list.length - 1]; list.pop(); }
    };
    drop(this.podsWithAffinity);
    drop(this.podsWithRequiredAntiAffinity);
    this.account(old, -1);
    return true;
  }

  private account(pod: Pod, sign: 1 | -1): void {
    const r = podRequests(pod);
    this.requested.addResource(r.requests, sign);
    this.nonZeroRequestedMilliCPU += sign * r.nonZeroMilliCPU;
    this.nonZeroRequestedMemory += sign * r.nonZeroMemory;
    this.numPods = this.pods.length;
    this.requestedMilliCPU = this.requested.milliCPU;
    this.requestedMemory = this.requested.memory;
    this.requestedEphemeralStorage = this.requested.ephemeralStorage;
    for (const c of pod.spec.containers ?? []) {
      for (const p of c.ports ?? []) {
        if (sign > 0) this.usedPorts.add(p.hostIP, p.protocol, p.hostPort ?? 0);
        else this.usedPorts.remove(p.hostIP, p.protocol, p.hostPort ?? 0);
      }
    }
    this.generation = nextGeneration();
  }

  /** A copy whose lists and sums can change without touching this one (pods themselves are shared). */
  clone(): NodeInfo {
    const c = new NodeInfo();
    c.node = this.node;
    c.name = this.name;
    c.pods = this.pods.slice();
    c.podsWithAffinity = this.podsWithAffinity.slice();
    c.podsWithRequiredAntiAffinity = this.podsWithRequiredAntiAffinity.slice();
    c.usedPorts = this.usedPorts.clone();
    c.requested = this.requested.clone();
    c.allocatable = this.allocatable;
    c.numPods = this.numPods;
    c.allocatableMilliCPU = this.allocatableMilliCPU;
    c.allocatableMemory = this.allocatableMemory;
    c.allocatableEphemeralStorage = this.allocatableEphemeralStorage;
    c.allowedPodNumber = this.allowedPodNumber;
    c.requestedMilliCPU = this.requestedMilliCPU;
    c.requestedMemory = this.requestedMemory;
    c.requestedEphemeralStorage = this.requestedEphemeralStorage;
    c.nonZeroRequestedMilliCPU = this.nonZeroRequestedMilliCPU;
    c.nonZeroRequestedMemory = this.nonZeroRequestedMemory;
    c.imageStates = this.imageStates;
    c.generation = this.generation;
    return c;
  }
}
