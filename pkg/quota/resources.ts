// Resource lists as LimitRanger and ResourceQuota read them: a pod's requests and limits, summed over
// its containers as upstream sums them, and quantities printed back.
import { parseQuantity } from "../util/quantity.ts";

export type ResourceList = Record<string, string>;
type Obj = Record<string, any>;

export const value = (q: unknown) => parseQuantity(q) ?? 0;

/** A sum printed as upstream's canonical quantity would be for the usual cases: cores with `m`, bytes whole. */
export function formatQuantity(n: number): string {
  if (Number.isInteger(n)) return String(n);
  const milli = Math.round(n * 1000);
  return Number.isInteger(milli) ? `${milli}m` : String(n);
}

/**
 * A pod's effective requests or limits: the sum over its containers, or an init container's when larger
 * (they run one at a time), plus the pod's overhead. A resource is present only if every container names it.
 */
export function podResources(pod: Obj, kind: "requests" | "limits"): Record<string, number> {
  const containers: Obj[] = pod.spec?.containers ?? [];
  const sum: Record<string, number> = {};
  const names = new Set(containers.flatMap((c) => Object.keys(c.resources?.[kind] ?? {})));
  for (const r of names) {
    if (!containers.every((c) => c.resources?.[kind]?.[r] !== undefined)) continue;
    sum[r] = containers.reduce((s, c) => s + value(c.resources[kind][r]), 0);
  }
  for (const c of (pod.spec?.initContainers ?? []) as Obj[]) {
    for (const [r, q] of Object.entries((c.resources?.[kind] ?? {}) as ResourceList)) if (r in sum) sum[r] = Math.max(sum[r], value(q));
  }
  for (const [r, q] of Object.entries((pod.spec?.overhead ?? {}) as ResourceList)) if (r in sum) sum[r] += value(q);
  return sum;
}
