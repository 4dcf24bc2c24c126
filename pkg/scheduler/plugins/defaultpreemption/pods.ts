// Pod ordering for preemption: priority, then start time (upstream's MoreImportantPod and
// GetPodStartTime).
import type { Pod } from "../../framework/index.ts";

export const priorityOf = (p: Pod) => p.spec.priority ?? 0;

/** status.startTime in ms; a pod not started yet counts as starting now. */
export function startTimeOf(p: Pod, now: number): number {
  const t = p.status?.startTime;
  const ms = typeof t === "string" ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? now : ms;
}

/** Sorts higher priority first, then the pod that started earlier. */
export function moreImportantFirst(pods: Pod[], now: number): Pod[] {
  return pods.sort((a, b) => priorityOf(b) - priorityOf(a) || startTimeOf(a, now) - startTimeOf(b, now));
}
