// What a DELETE does to one object, decided before the write: its preconditions, and whether it goes at
// once or stays, marked for deletion, until its finalizers and grace period are done.
import { type Qualified, conflict } from "../api/status.ts";
import type { DeleteOptions } from "./store-options.ts";
import type { Obj, ResourceDef } from "./types.ts";

/** The request's uid and resourceVersion preconditions: 409 with upstream's message when one fails. */
export function checkPreconditions(q: Qualified, obj: Obj, pre: DeleteOptions["preconditions"]) {
  const m = obj.metadata;
  if (pre?.uid && pre.uid !== m.uid) {
    throw conflict(q, m.name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${m.uid}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== m.resourceVersion) {
    throw conflict(q, m.name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion}`);
  }
}

export interface DeletionPlan {
  /** The finalizers the object holds once marked (the kind's own, and propagationPolicy's orphan or foregroundDeletion). */
  finalizers: string[];
  /** The kind deletes gracefully (a pod on a node) and the request did not ask for gracePeriodSeconds=0. */
  graceful: boolean;
  /** The object stays, marked with deletionTimestamp, rather than being removed now. */
  pending: boolean;
}

export function deletionPlan(def: ResourceDef, obj: Obj, o: DeleteOptions): DeletionPlan {
  const m = obj.metadata;
  const finalizers: string[] = [...(m.finalizers ?? [])];
  const add = (f: string) => { if (!finalizers.includes(f)) finalizers.push(f); };
  const drop = (f: string) => { const i = finalizers.indexOf(f); if (i >= 0) finalizers.splice(i, 1); };
  if (!m.deletionTimestamp) for (const f of def.strategy?.deletionFinalizers?.(obj) ?? []) add(f);
  if (o.propagationPolicy === "Orphan") { add("orphan"); drop("foregroundDeletion"); }
  if (o.propagationPolicy === "Foreground") { add("foregroundDeletion"); drop("orphan"); }
  const graceful = o.gracePeriodSeconds !== 0 && !!def.strategy?.deleteImmediately && !def.strategy.deleteImmediately(obj);
  const pending = finalizers.length > 0 || graceful || !!def.strategy?.pendingFinalizers?.(obj);
  return { finalizers, graceful, pending };
}
