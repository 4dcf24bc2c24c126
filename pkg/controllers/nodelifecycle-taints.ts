// The taints the node lifecycle controller keeps on a node from its conditions (upstream v1.21's
// TaintNodesByCondition, NoSchedule, and TaintBasedEvictions, NoExecute), and how a pod's tolerations meet
// a node's NoExecute taints (upstream's taint manager: evict at once, after the least tolerationSeconds, or
// never).
import type { Obj } from "../client/client.ts";
import { rfc3339 } from "../client/time.ts";
import { conditionOf } from "./nodelifecycle-health.ts";
import type { NoExecutePolicy } from "./nodelifecycle-zones.ts";

export const NOT_READY = "node.kubernetes.io/not-ready";
export const UNREACHABLE = "node.kubernetes.io/unreachable";
const UNSCHEDULABLE = "node.kubernetes.io/unschedulable";

/** NoSchedule taints by condition and status (upstream's nodeConditionToTaintKeyStatusMap). */
const BY_CONDITION: [type: string, status: string, key: string][] = [
  ["Ready", "False", NOT_READY],
  ["Ready", "Unknown", UNREACHABLE],
  ["MemoryPressure", "True", "node.kubernetes.io/memory-pressure"],
  ["DiskPressure", "True", "node.kubernetes.io/disk-pressure"],
  ["NetworkUnavailable", "True", "node.kubernetes.io/network-unavailable"],
  ["PIDPressure", "True", "node.kubernetes.io/pid-pressure"],
];
const NO_SCHEDULE_KEYS = new Set([...BY_CONDITION.map(([, , key]) => key), UNSCHEDULABLE]);
const NO_EXECUTE_KEYS = new Set([NOT_READY, UNREACHABLE]);

export interface Taint { key: string; value?: string; effect: string; timeAdded?: string }
export interface Toleration { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }

const managed = (t: Taint) => (t.effect === "NoSchedule" && NO_SCHEDULE_KEYS.has(t.key)) || (t.effect === "NoExecute" && NO_EXECUTE_KEYS.has(t.key));

/** The taints the controller wants, from the node's conditions and spec.unschedulable, and its zone's policy. */
function wanted(node: Obj, policy: NoExecutePolicy): Taint[] {
  const out: Taint[] = [];
  for (const [type, status, key] of BY_CONDITION) if (conditionOf(node, type)?.status === status) out.push({ key, effect: "NoSchedule" });
  if (node.spec?.unschedulable) out.push({ key: UNSCHEDULABLE, effect: "NoSchedule" });
  const ready = conditionOf(node, "Ready")?.status;
  if (policy === "none" || ready === "True") return out;
  // evictions held in the zone: no new NoExecute taint, the present ones stay
  if (policy === "hold") return [...out, ...(node.spec?.taints ?? []).filter((t: Taint) => t.effect === "NoExecute" && NO_EXECUTE_KEYS.has(t.key))];
  if (ready === "False") out.push({ key: NOT_READY, effect: "NoExecute" });
  if (ready === "Unknown") out.push({ key: UNREACHABLE, effect: "NoExecute" });
  return out;
}

/**
 * The node's taints with the controller's brought in line with its conditions (others kept as they are), or
 * undefined when nothing changes. A NoExecute taint is stamped with the time it was added.
 */
export function reconcileTaints(node: Obj, policy: NoExecutePolicy = "follow"): Taint[] | undefined {
  const current: Taint[] = node.spec?.taints ?? [];
  const want = wanted(node, policy);
  const same = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
  const kept = current.filter((t) => !managed(t) || want.some((w) => same(w, t)));
  const added = want.filter((w) => !current.some((t) => same(w, t)));
  if (!added.length && kept.length === current.length) return undefined;
  const now = rfc3339(new Date());
  return [...kept, ...added.map((t) => (t.effect === "NoExecute" ? { ...t, timeAdded: now } : t))];
}

/** Upstream's ToleratesTaint. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === "Exists") return true;
  return (t.operator ?? "Equal") === "Equal" && (t.value ?? "") === (taint.value ?? "");
}

/**
 * How long a pod may stay on a node with these NoExecute taints (ms): 0 when a taint is not tolerated,
 * the least tolerationSeconds of the tolerations used, or undefined (forever) when none of them has any.
 */
export function tolerationMs(taints: Taint[], tolerations: Toleration[]): number | undefined {
  let least: number | undefined;
  for (const taint of taints) {
    const used = tolerations.find((t) => tolerates(t, taint));
    if (!used) return 0;
    if (used.tolerationSeconds === undefined || used.tolerationSeconds === null) continue;
    const ms = Math.max(0, used.tolerationSeconds) * 1000;
    least = least === undefined ? ms : Math.min(least, ms);
  }
  return least;
}

export const noExecuteTaints = (node: Obj | undefined): Taint[] => (node?.spec?.taints ?? []).filter((t: Taint) => t.effect === "NoExecute");
