// What controllers read from a pod's status (upstream's podutil): readiness, availability after
// minReadySeconds, and whether a pod still counts (not finished, not being deleted).
import type { Obj } from "../client/client.ts";

export const readyCondition = (pod: Obj): Obj | undefined => (pod.status?.conditions ?? []).find((c: Obj) => c.type === "Ready");

export const isPodReady = (pod: Obj): boolean => readyCondition(pod)?.status === "True";

/** Ready for at least minReadySeconds (upstream's IsPodAvailable). */
export function isPodAvailable(pod: Obj, minReadySeconds: number, now = Date.now()): boolean {
  const c = readyCondition(pod);
  if (c?.status !== "True") return false;
  if (!minReadySeconds) return true;
  const since = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return !Number.isNaN(since) && since + minReadySeconds * 1000 < now;
}

/** A pod a controller counts: not Succeeded or Failed, and not being deleted (FilterActivePods). */
export const isPodActive = (pod: Obj): boolean =>
  pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed" && !pod.metadata.deletionTimestamp;
