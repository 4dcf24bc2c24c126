// Resource amounts as the scheduler counts them (upstream's framework.Resource): CPU in millicores,
// everything else in whole units, rounded up as resource.Quantity's MilliValue/Value do.
import { parseQuantity } from "../../util/quantity.ts";
import type { Container, Pod, ResourceList } from "./api.ts";

export const CPU = "cpu";
export const MEMORY = "memory";
export const EPHEMERAL_STORAGE = "ephemeral-storage";
export const PODS = "pods";

/** Requests assumed for a container that sets none, for spreading scores (upstream's non-zero defaults). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

const cache = new Map<string | number, number>();

/** A quantity's value in base units, rounded up; `milli` gives thousandths (for CPU). */
export function quantityValue(q: string | number | undefined, milli = false): number {
  if (q === undefined) return 0;
  const key = milli ? `m${q}` : q;
  let v = cache.get(key);
  if (v === undefined) {
    const x = parseQuantity(q) ?? 0;
    // Round away float noise ("0.1" × 1000) before rounding up as Quantity does.
    const scaled = milli ? x * 1000 : x;
    v = Math.ceil(Math.round(scaled * 1e6) / 1e6);
    if (cache.size > 4096) cache.clear();
    cache.set(key, v);
  }
  return v;
}

/** Extended, hugepages, attachable-volumes and kubernetes.io/-prefixed resources (IsScalarResourceName). */
export function isScalarResource(name: string): boolean {
  return name.includes("/") || name.startsWith("hugepages-") || name.startsWith("attachable-volumes-");
}

/** Extended resources are outside the kubernetes.io namespace (IsExtendedResourceName). */
export function isExtendedResource(name: string): boolean {
  return name.includes("/") && !name.includes("kubernetes.io/") && !name.startsWith("requests.");
}

export class Resource {
  milliCPU = 0;
  memory = 0;
  ephemeralStorage = 0;
  allowedPodNumber = 0;
  scalar: Map<string, number> | null = null;

  /** Adds a ResourceList (requests, overhead). */
  addList(list: ResourceList | undefined): void {
    if (!list) return;
    for (const name in list) {
      const q = list[name];
      switch (name) {
        case CPU: this.milliCPU += quantityValue(q, true); break;
        case MEMORY: this.memory += quantityValue(q); break;
        case EPHEMERAL_STORAGE: this.ephemeralStorage += quantityValue(q); break;
        case PODS: this.allowedPodNumber += quantityValue(q); break;
        default:
          if (isScalarResource(name)) this.addScalar(name, quantityValue(q));
      }
    }
  }

  /** Raises each resource to at least the list's value (init containers). */
  maxList(list: ResourceList | undefined): void {
    if (!list) return;
    for (const name in list) {
      const q = list[name];
      switch (name) {
        case CPU: this.milliCPU = Math.max(this.milliCPU, quantityValue(q, true)); break;
        case MEMORY: this.memory = Math.max(this.memory, quantityValue(q)); break;
        case EPHEMERAL_STORAGE: this.ephemeralStorage = Math.max(this.ephemeralStorage, quantityValue(q)); break;
        case PODS: this.allowedPodNumber = Math.max(this.allowedPodNumber, quantityValue(q)); break;
        default:
          if (isScalarResource(name)) this.setScalar(name, Math.max(this.scalarOf(name), quantityValue(q)));
      }
    }
  }

  scalarOf(name: string): number {
    return this.scalar?.get(name) ?? 0;
  }

  setScalar(name: string, v: number): void {
    (this.scalar ??= new Map()).set(name, v);
  }

  addScalar(name: string, v: number): void {
    this.setScalar(name, this.scalarOf(name) + v);
  }

  /** Adds (sign 1) or subtracts (sign -1) another amount. */
  addResource(r: Resource, sign: 1 | -1): void {
    this.milliCPU += sign * r.milliCPU;
    this.memory += sign * r.memory;
    this.ephemeralStorage += sign * r.ephemeralStorage;
    this.allowedPodNumber += sign * r.allowedPodNumber;
    if (r.scalar) for (const [k, v] of r.scalar) this.addScalar(k, sign * v);
  }

  clone(): Resource {
    const c = new Resource();
    c.milliCPU = this.milliCPU;
    c.memory = this.memory;
    c.ephemeralStorage = this.ephemeralStorage;
    c.allowedPodNumber = this.allowedPodNumber;
    if (this.scalar) c.scalar = new Map(this.scalar);
    return c;
  }

  /** The amount of a resource by its API name. */
  get(name: string): number {
    switch (name) {
      case CPU: return this.milliCPU;
      case MEMORY: return this.memory;
      case EPHEMERAL_STORAGE: return this.ephemeralStorage;
      case PODS: return this.allowedPodNumber;
      default: return this.scalarOf(name);
    }
  }

  static fromList(list: ResourceList | undefined): Resource {
    const r = new Resource();
    r.addList(list);
    return r;
  }
}

const requestsOf = (c: Container) => c.resources?.requests;

export interface PodRequests { requests: Resource; nonZeroMilliCPU: number; nonZeroMemory: number }

/**
 * What a pod asks of a node: its containers' requests summed, raised to any init container's
 * request (they run one at a time, first), plus the pod overhead — for NodeResourcesFit and for
 * the node's own accounting alike. `nonZero*` count the defaults for containers that request none.
 */
export function podRequests(pod: Pod): PodRequests {
  const requests = new Resource();
  let nonZeroMilliCPU = 0;
  let nonZeroMemory = 0;
  for (const c of pod.spec.containers ?? []) {
    const req = requestsOf(c);
    requests.addList(req);
    nonZeroMilliCPU += req?.[CPU] !== undefined ? quantityValue(req[CPU], true) : DEFAULT_MILLI_CPU_REQUEST;
    nonZeroMemory += req?.[MEMORY] !== undefined ? quantityValue(req[MEMORY]) : DEFAULT_MEMORY_REQUEST;
  }
  for (const c of pod.spec.initContainers ?? []) {
    const req = requestsOf(c);
    requests.maxList(req);
    nonZeroMilliCPU = Math.max(nonZeroMilliCPU, req?.[CPU] !== undefined ? quantityValue(req[CPU], true) : DEFAULT_MILLI_CPU_REQUEST);
    nonZeroMemory = Math.max(nonZeroMemory, req?.[MEMORY] !== undefined ? quantityValue(req[MEMORY]) : DEFAULT_MEMORY_REQUEST);
  }
  const overhead = pod.spec.overhead;
  if (overhead) {
    requests.addList(overhead);
    if (overhead[CPU] !== undefined) nonZeroMilliCPU += quantityValue(overhead[CPU], true);
    if (overhead[MEMORY] !== undefined) nonZeroMemory += quantityValue(overhead[MEMORY]);
  }
  return { requests, nonZeroMilliCPU, nonZeroMemory };
}
