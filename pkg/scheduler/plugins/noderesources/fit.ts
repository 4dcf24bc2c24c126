// NodeResourcesFit: the node's allocatable must cover what its pods already request plus this pod
// (cpu, memory, ephemeral-storage, extended and other scalar resources), and one more pod.
import {
  isExtendedResource, podRequests, Status, Code,
  type CycleState, type FilterPlugin, type NodeInfo, type Plugin, type PreFilterPlugin, type Resource, type StateData,
} from "../../framework/index.ts";
import { NodeResourcesFit } from "../names.ts";
import { StateMemo } from "../state-memo.ts";

export interface NodeResourcesFitArgs {
  /** Extended resources the filter does not check. */
  ignoredResources?: string[];
  /** Extended resource groups ("example.com" for "example.com/gpu") the filter does not check. */
  ignoredResourceGroups?: string[];
}

class PodRequest implements StateData {
  constructor(readonly request: Resource) {}
  clone() { return this; }
}

export interface InsufficientResource {
  resourceName: string;
  reason: string;
  requested: number;
  used: number;
  capacity: number;
}

/** What the pod lacks on the node; empty when it fits. */
export function fitsRequest(req: Resource, nodeInfo: NodeInfo, ignored: Set<string>, ignoredGroups: Set<string>): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  const alloc = nodeInfo.allocatable;
  const used = nodeInfo.requested;
  if (nodeInfo.pods.length + 1 > alloc.allowedPodNumber) {
    out.push({ resourceName: "pods", reason: "Too many pods", requested: 1, used: nodeInfo.pods.length, capacity: alloc.allowedPodNumber });
  }
  if (req.milliCPU === 0 && req.memory === 0 && req.ephemeralStorage === 0 && !req.scalar?.size) return out;
  if (alloc.milliCPU < req.milliCPU + used.milliCPU) {
    out.push({ resourceName: "cpu", reason: "Insufficient cpu", requested: req.milliCPU, used: used.milliCPU, capacity: alloc.milliCPU });
  }
  if (alloc.memory < req.memory + used.memory) {
    out.push({ resourceName: "memory", reason: "Insufficient memory", requested: req.memory, used: used.memory, capacity: alloc.memory });
  }
  if (alloc.ephemeralStorage < req.ephemeralStorage + used.ephemeralStorage) {
    out.push({
      resourceName: "ephemeral-storage", reason: "Insufficient ephemeral-storage",
      requested: req.ephemeralStorage, used: used.ephemeralStorage, capacity: alloc.ephemeralStorage,
    });
  }
  if (req.scalar) {
    for (const [name, q] of req.scalar) {
      if (isExtendedResource(name) && (ignored.has(name) || ignoredGroups.has(name.split("/")[0]))) continue;
      const have = alloc.scalarOf(name);
      const inUse = used.scalarOf(name);
      if (have < q + inUse) out.push({ resourceName: name, reason: `Insufficient ${name}`, requested: q, used: inUse, capacity: have });
    }
  }
  return out;
}

/** The common case without building reasons: every checked resource fits (flat fields: read per node). */
function fits(req: Resource, nodeInfo: NodeInfo): boolean {
  return nodeInfo.numPods < nodeInfo.allowedPodNumber && req.scalar === null &&
    nodeInfo.allocatableMilliCPU >= req.milliCPU + nodeInfo.requestedMilliCPU &&
    nodeInfo.allocatableMemory >= req.memory + nodeInfo.requestedMemory &&
    nodeInfo.allocatableEphemeralStorage >= req.ephemeralStorage + nodeInfo.requestedEphemeralStorage;
}

export function newFit(args: unknown): Plugin {
  const a = (args ?? {}) as NodeResourcesFitArgs;
  const ignored = new Set(a.ignoredResources ?? []);
  const ignoredGroups = new Set(a.ignoredResourceGroups ?? []);
  const memo = new StateMemo<PodRequest>("PreFilter" + NodeResourcesFit);
  const plugin: PreFilterPlugin & FilterPlugin = {
    name: NodeResourcesFit,
    preFilter(state, pod) {
      memo.write(state, new PodRequest(podRequests(pod).requests));
      return null;
    },
    preFilterExtensions: () => null,
    filter(state: CycleState, _pod, nodeInfo) {
      const s = memo.read(state);
      if (fits(s.request, nodeInfo)) return null;
      const lacking = fitsRequest(s.request, nodeInfo, ignored, ignoredGroups);
      if (lacking.length === 0) return null;
      return new Status(Code.Unschedulable, ...lacking.map((r) => r.reason));
    },
  };
  return plugin;
}
