// Pod admission on the node, as upstream's kubelet runs it before starting a pod: the pods the node
// already runs plus this one must fit --max-pods and the node's allocatable cpu, memory and
// ephemeral-storage (requests, as the scheduler counts them). A pod that does not fit is never started:
// it is Failed with reason OutOf<resource>.
import { CPU, EPHEMERAL_STORAGE, MEMORY, podRequests } from "../scheduler/framework/resource.ts";
import type { Obj, Resources } from "./node.ts";

export interface Rejection { reason: string; message: string }

const insufficient = (resource: string, requested: number, used: number, capacity: number): Rejection => ({
  reason: `OutOf${resource}`,
  message: `Pod Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
});

/** Requests per pod object: admitting a burst of pods reads each admitted one's again for every new one. */
const requestsOf = new WeakMap<Obj, ReturnType<typeof podRequests>["requests"]>();
function requests(pod: Obj) {
  let r = requestsOf.get(pod);
  if (!r) requestsOf.set(pod, (r = podRequests(pod as any).requests));
  return r;
}

/** Why `pod` may not run beside `admitted` on a node with `allocatable`, or undefined when it may. */
export function admit(pod: Obj, admitted: Obj[], allocatable: Resources): Rejection | undefined {
  if (admitted.length + 1 > allocatable.pods) return insufficient("pods", 1, admitted.length, allocatable.pods);
  const want = requests(pod);
  const used = { cpu: 0, memory: 0, storage: 0 };
  for (const p of admitted) {
    const r = requests(p);
    used.cpu += r.milliCPU;
    used.memory += r.memory;
    used.storage += r.ephemeralStorage;
  }
  const checks: [string, number, number, number][] = [
    [CPU, want.milliCPU, used.cpu, Math.round(allocatable.cpu * 1000)],
    [MEMORY, want.memory, used.memory, allocatable.memory],
    [EPHEMERAL_STORAGE, want.ephemeralStorage, used.storage, allocatable["ephemeral-storage"]],
  ];
  if (checks.every(([, requested]) => requested === 0)) return undefined;
  for (const [name, requested, u, capacity] of checks) {
    if (requested > capacity - u) return insufficient(name, requested, u, capacity);
  }
  return undefined;
}
