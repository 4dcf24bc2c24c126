// The scores that compare a node's requested resources with its allocatable (upstream's
// resourceAllocationScorer): LeastAllocated, MostAllocated, BalancedAllocation and
// RequestedToCapacityRatio differ only in how they turn (requested, allocatable) into 0..100.
import {
  CPU, DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, EPHEMERAL_STORAGE, isScalarResource, MEMORY, quantityValue,
  type NodeInfo, type Plugin, type Pod, type ResourceList, type ScorePlugin,
} from "../../framework/index.ts";

export interface ResourceSpec { name: string; weight?: number }

/** A resource's request of one container, with the defaults for unset CPU and memory. */
function nonZeroRequest(list: ResourceList | undefined, resource: string): number {
  const q = list?.[resource];
  switch (resource) {
    case CPU: return q === undefined ? DEFAULT_MILLI_CPU_REQUEST : quantityValue(q, true);
    case MEMORY: return q === undefined ? DEFAULT_MEMORY_REQUEST : quantityValue(q);
    default: return q === undefined || (resource !== EPHEMERAL_STORAGE && !isScalarResource(resource)) ? 0 : quantityValue(q);
  }
}

/** The pod's request of one resource as the scores count it: containers summed, init containers' max, overhead. */
export function podResourceRequest(pod: Pod, resource: string): number {
  let total = 0;
  for (const c of pod.spec.containers ?? []) total += nonZeroRequest(c.resources?.requests, resource);
  for (const c of pod.spec.initContainers ?? []) total = Math.max(total, nonZeroRequest(c.resources?.requests, resource));
  const overhead = pod.spec.overhead?.[resource];
  if (overhead !== undefined) total += quantityValue(overhead, resource === CPU);
  return total;
}

const enum Kind { CPU, Memory, Ephemeral, Scalar, Other }

function kindOf(resource: string): Kind {
  switch (resource) {
    case CPU: return Kind.CPU;
    case MEMORY: return Kind.Memory;
    case EPHEMERAL_STORAGE: return Kind.Ephemeral;
    default: return isScalarResource(resource) ? Kind.Scalar : Kind.Other;
  }
}

/** Writes the node's allocatable and requested (the pod included) amounts of resource i into the arrays. */
function fill(nodeInfo: NodeInfo, kind: Kind, resource: string, podRequest: number, i: number, allocatable: number[], requested: number[]): void {
  switch (kind) {
    case Kind.CPU:
      allocatable[i] = nodeInfo.allocatableMilliCPU;
      requested[i] = nodeInfo.nonZeroRequestedMilliCPU + podRequest;
      return;
    case Kind.Memory:
      allocatable[i] = nodeInfo.allocatableMemory;
      requested[i] = nodeInfo.nonZeroRequestedMemory + podRequest;
      return;
    case Kind.Ephemeral:
      allocatable[i] = nodeInfo.allocatableEphemeralStorage;
      requested[i] = nodeInfo.requestedEphemeralStorage + podRequest;
      return;
    case Kind.Scalar:
      allocatable[i] = nodeInfo.allocatable.scalarOf(resource);
      requested[i] = nodeInfo.requested.scalarOf(resource) + podRequest;
      return;
    default:
      allocatable[i] = 0;
      requested[i] = 0;
  }
}

/**
 * Turns the requested and allocatable amounts of each scored resource (in the order of `resources`)
 * into a node score.
 */
export type Scorer = (requested: number[], allocatable: number[]) => number;

/** A score plugin over these resources; the pod's requests are computed once per pod. */
export function allocationScorePlugin(name: string, resources: ResourceSpec[], scorer: Scorer): Plugin {
  const names = resources.map((r) => r.name);
  const kinds = names.map(kindOf);
  const requested = new Array<number>(names.length).fill(0);
  const allocatable = new Array<number>(names.length).fill(0);
  let lastPod: Pod | null = null;
  const podReq = new Array<number>(names.length).fill(0);
  const score = (pod: Pod, nodeInfo: NodeInfo): number => {
    if (!nodeInfo.node) throw new Error(`getting node "${nodeInfo.name}" from Snapshot: node not found`);
    if (pod !== lastPod) {
      for (let i = 0; i < names.length; i++) podReq[i] = podResourceRequest(pod, names[i]);
      lastPod = pod;
    }
    for (let i = 0; i < names.length; i++) fill(nodeInfo, kinds[i], names[i], podReq[i], i, allocatable, requested);
    return scorer(requested, allocatable);
  };
  const plugin: ScorePlugin = {
    name,
    score: (_state, pod, nodeInfo) => score(pod, nodeInfo),
    scoreNodes(_state, pod, nodes, scores) {
      for (let i = 0; i < nodes.length; i++) scores[i].score = score(pod, nodes[i]);
    },
    scoreExtensions: () => null,
  };
  return plugin;
}

/** Weighted mean of per-resource scores, integer-divided as upstream. */
export function weightedScorer(weights: number[], perResource: (requested: number, capacity: number) => number): Scorer {
  return (requested, allocatable) => {
    let score = 0;
    let weightSum = 0;
    for (let i = 0; i < weights.length; i++) {
      score += perResource(requested[i], allocatable[i]) * weights[i];
      weightSum += weights[i];
    }
    return weightSum === 0 ? 0 : Math.trunc(score / weightSum);
  };
}

export const DEFAULT_RESOURCES: ResourceSpec[] = [{ name: CPU, weight: 1 }, { name: MEMORY, weight: 1 }];

/** The args' resources, defaulted to cpu and memory with weight 1; a weight of 0 counts as 1. */
export function resourcesOf(args: unknown): ResourceSpec[] {
  const r = (args as { resources?: ResourceSpec[] } | undefined)?.resources;
  return (r && r.length > 0 ? r : DEFAULT_RESOURCES).map((x) => ({ name: x.name, weight: x.weight || 1 }));
}
