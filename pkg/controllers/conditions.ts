// Status conditions of workload controllers (ReplicaSet, Deployment): set one by type, keeping its
// lastTransitionTime while its status does not change, as upstream's SetDeploymentCondition does.
import type { Obj } from "../client/client.ts";
import { rfc3339 } from "../client/time.ts";

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export const getCondition = (conditions: Obj[] | undefined, type: string): Condition | undefined =>
  conditions?.find((c) => c.type === type) as Condition | undefined;

/** A new condition stamped now; `updateTime` adds lastUpdateTime (Deployments carry it, ReplicaSets do not). */
export function newCondition(type: string, status: Condition["status"], reason: string, message: string, updateTime = true): Condition {
  const now = rfc3339(new Date());
  return updateTime ? { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message } : { type, status, lastTransitionTime: now, reason, message };
}

/** The conditions with `c` in place of its type's: unchanged when status and reason are the same. */
export function setCondition(conditions: Obj[] | undefined, c: Condition): Obj[] {
  const list = conditions ?? [];
  const cur = getCondition(list, c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return list;
  if (cur && cur.status === c.status) c = { ...c, lastTransitionTime: cur.lastTransitionTime };
  return [...list.filter((x) => x.type !== c.type), c];
}

export const removeCondition = (conditions: Obj[] | undefined, type: string): Obj[] => (conditions ?? []).filter((c) => c.type !== type);
