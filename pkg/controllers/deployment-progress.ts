// A rollout's progress (upstream's deployment progress.go): the Progressing condition — ReplicaSetUpdated
// while pods move, NewReplicaSetAvailable once complete, ProgressDeadlineExceeded when nothing moved for
// progressDeadlineSeconds — and ReplicaFailure carried up from the ReplicaSets. A rollout that may still
// time out is looked at again when its deadline passes.
import type { Obj } from "../client/client.ts";
import { getCondition, newCondition, removeCondition, setCondition } from "./conditions.ts";
import type { DeploymentSyncer } from "./deployment-sync.ts";
import { hasProgressDeadline, replicasOf } from "./deployment-util.ts";

/** Every desired pod is updated and available, and the spec observed (DeploymentComplete). */
export const deploymentComplete = (d: Obj, st: Obj): boolean =>
  st.updatedReplicas === replicasOf(d) && st.replicas === replicasOf(d) && st.availableReplicas === replicasOf(d) && (st.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);

/** Something moved since the last status (DeploymentProgressing). */
function deploymentProgressing(d: Obj, st: Obj): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (st.replicas ?? 0) - (st.updatedReplicas ?? 0);
  return (st.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld
    || (st.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (st.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** The Progressing condition last moved longer than progressDeadlineSeconds ago (DeploymentTimedOut). */
function deploymentTimedOut(d: Obj, st: Obj): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(st.conditions, "Progressing");
  if (!c || c.reason === "NewReplicaSetAvailable") return false;
  if (c.reason === "ProgressDeadlineExceeded") return true;
  return Date.parse(c.lastUpdateTime ?? "") + d.spec.progressDeadlineSeconds * 1000 < Date.now();
}

const subject = (newRS: Obj | undefined, d: Obj) => (newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`);

/** Writes the status with the Progressing and ReplicaFailure conditions (syncRolloutStatus). */
export async function syncRolloutStatus(dc: DeploymentSyncer, allRSs: Obj[], newRS: Obj | undefined, d: Obj, requeueAfter: (d: Obj, ms: number) => void): Promise<void> {
  const st = dc.calculateStatus(allRSs, newRS, d);
  if (!hasProgressDeadline(d)) st.conditions = removeCondition(st.conditions, "Progressing");
  const cur = getCondition(st.conditions, "Progressing");
  const complete = st.replicas === st.updatedReplicas && cur?.reason === "NewReplicaSetAvailable";
  if (hasProgressDeadline(d) && !complete) {
    if (deploymentComplete(d, st)) {
      st.conditions = setCondition(st.conditions, newCondition("Progressing", "True", "NewReplicaSetAvailable", `${subject(newRS, d)} has successfully progressed.`));
    } else if (deploymentProgressing(d, st)) {
      // progress moves lastUpdateTime (the deadline counts from it), not lastTransitionTime
      const c = newCondition("Progressing", "True", "ReplicaSetUpdated", `${subject(newRS, d)} is progressing.`);
      if (cur?.status === "True") c.lastTransitionTime = cur.lastTransitionTime;
      st.conditions = [...removeCondition(st.conditions, "Progressing"), c];
    } else if (deploymentTimedOut(d, st)) {
      st.conditions = setCondition(st.conditions, newCondition("Progressing", "False", "ProgressDeadlineExceeded", `${subject(newRS, d)} has timed out progressing.`));
    }
  }
  const failure = replicaFailure(allRSs, newRS);
  st.conditions = failure
    ? setCondition(st.conditions, newCondition("ReplicaFailure", failure.status, failure.reason, failure.message))
    : removeCondition(st.conditions, "ReplicaFailure");
  if (!st.conditions.length) delete st.conditions;
  if (JSON.stringify(st) === JSON.stringify(d.status)) {
    const after = stuckFor(d, st);
    if (after !== undefined) requeueAfter(d, after);
    return;
  }
  d.status = st;
  await dc.writeStatus(d);
}

/** The new ReplicaSet's ReplicaFailure condition, else an old one's. */
function replicaFailure(allRSs: Obj[], newRS: Obj | undefined): Obj | undefined {
  const of = (rs: Obj) => getCondition(rs.status?.conditions, "ReplicaFailure");
  if (newRS) return of(newRS);
  for (const rs of allRSs) { const c = of(rs); if (c) return c; }
  return undefined;
}

/** How long until an unfinished rollout's deadline passes (requeueStuckDeployment); undefined: never. */
function stuckFor(d: Obj, st: Obj): number | undefined {
  const c = getCondition(st.conditions, "Progressing");
  if (!hasProgressDeadline(d) || !c) return undefined;
  if (deploymentComplete(d, st) || c.reason === "ProgressDeadlineExceeded") return undefined;
  const after = Date.parse(c.lastUpdateTime ?? "") + d.spec.progressDeadlineSeconds * 1000 - Date.now();
  return after < 1000 ? 0 : after + 1000;
}
