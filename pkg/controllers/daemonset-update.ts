// A DaemonSet's rolling update (upstream v1.21's rollingUpdate without surge): old pods that are not
// available are replaced at once; available old pods are deleted only while fewer than maxUnavailable
// nodes are unavailable (a node whose pod is missing, terminating, not yet available, or doubled counts).
import type { Obj } from "../client/client.ts";
import { isPodUpdated } from "./daemonset-nodes.ts";
import { scaledValue } from "./deployment-util.ts";
import { isPodAvailable } from "./podutil.ts";

/** maxUnavailable as a count of nodes, a percentage rounded up; at least 1 as upstream's fencepost. */
export function maxUnavailable(ds: Obj, desired: number): number {
  const n = scaledValue(ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, desired, true, "");
  return n === 0 ? 1 : n;
}

/** The one new and one old live pod on a node; ok false when there are two of either (findUpdatedPodsOnNode). */
function podsOnNode(ds: Obj, pods: Obj[], hash: string): { ok: boolean; fresh?: Obj; old?: Obj } {
  let fresh: Obj | undefined, old: Obj | undefined;
  for (const p of pods) {
    if (p.metadata.deletionTimestamp) continue;
    if (isPodUpdated(ds, p, hash)) {
      if (fresh) return { ok: false };
      fresh = p;
    } else {
      if (old) return { ok: false };
      old = p;
    }
  }
  return { ok: true, fresh, old };
}

/** The old pods to delete now, of the DaemonSet's pods by node. */
export function podsToReplace(ds: Obj, byNode: Map<string, Obj[]>, hash: string, desired: number, now = Date.now()): Obj[] {
  const budget = maxUnavailable(ds, desired);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  let unavailable = 0;
  const replaceNow: Obj[] = [], candidates: Obj[] = [];
  for (const pods of byNode.values()) {
    const { ok, fresh, old } = podsOnNode(ds, pods, hash);
    if (!ok || (!fresh && !old) || (fresh && old)) {
      // the manage pass creates or deletes what this node lacks or has too much of
      unavailable++;
    } else if (fresh) {
      if (!isPodAvailable(fresh, minReady, now)) unavailable++;
    } else if (!isPodAvailable(old!, minReady, now)) {
      replaceNow.push(old!);
    } else if (unavailable < budget) {
      candidates.push(old!);
    }
  }
  const room = Math.min(Math.max(0, budget - unavailable), candidates.length);
  return [...replaceNow, ...candidates.slice(0, room)];
}
