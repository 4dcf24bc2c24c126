// A pod's QoS class, as upstream's GetPodQOS computes it when the pod is created: from the cpu and memory
// requests and limits of all its containers (init containers too), after defaulting (a limit without a
// request has become the request).
import { parseQuantity } from "./quantity.ts";

type Obj = Record<string, any>;

const QOS_RESOURCES = ["cpu", "memory"];

export function podQOSClass(pod: Obj): "Guaranteed" | "Burstable" | "BestEffort" {
  const requests = new Map<string, number>(), limits = new Map<string, number>();
  let guaranteed = true;
  const add = (into: Map<string, number>, list: Obj | undefined): Set<string> => {
    const found = new Set<string>();
    for (const name of QOS_RESOURCES) {
      const v = parseQuantity(list?.[name]);
      if (v === null || v <= 0) continue;
      found.add(name);
      into.set(name, (into.get(name) ?? 0) + v);
    }
    return found;
  };
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    add(requests, c?.resources?.requests);
    if (add(limits, c?.resources?.limits).size < QOS_RESOURCES.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) for (const [name, v] of requests) if (limits.get(name) !== v) guaranteed = false;
  return guaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}
