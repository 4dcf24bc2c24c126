// The Recreate strategy (upstream's recreate.go): every old ReplicaSet to 0, wait until no old pod runs,
// then the new ReplicaSet at full size.
import type { Obj } from "../client/client.ts";
import { deploymentComplete, syncRolloutStatus } from "./deployment-progress.ts";
import type { DeploymentSyncer } from "./deployment-sync.ts";
import { activeReplicaSets, actualReplicas } from "./deployment-util.ts";

export async function rolloutRecreate(dc: DeploymentSyncer, d: Obj, rsList: Obj[], podsOf: (rs: Obj) => Obj[], requeueAfter: (d: Obj, ms: number) => void): Promise<void> {
  let { newRS, oldRSs } = await dc.replicaSetsAndSyncRevision(d, rsList, false);
  const all = () => [...oldRSs, ...(newRS ? [newRS] : [])];

  let scaledDown = false;
  for (const rs of activeReplicaSets(oldRSs)) {
    const [scaled, now] = await dc.scaleAndRecord(rs, 0, d);
    oldRSs = oldRSs.map((x) => (x === rs ? now : x));
    scaledDown ||= scaled;
  }
  if (scaledDown || oldPodsRunning(newRS, oldRSs, podsOf)) return syncRolloutStatus(dc, all(), newRS, d, requeueAfter);

  if (!newRS) ({ newRS, oldRSs } = await dc.replicaSetsAndSyncRevision(d, rsList, true));
  newRS = (await dc.scaleAndRecord(newRS!, d.spec.replicas ?? 0, d))[1];
  if (deploymentComplete(d, d.status ?? {})) await dc.cleanup(oldRSs, d);
  await syncRolloutStatus(dc, all(), newRS, d, requeueAfter);
}

/** Any old ReplicaSet still reports pods, or one of its pods has not finished. */
function oldPodsRunning(newRS: Obj | undefined, oldRSs: Obj[], podsOf: (rs: Obj) => Obj[]): boolean {
  if (actualReplicas(oldRSs) > 0) return true;
  return oldRSs.some((rs) => rs !== newRS && podsOf(rs).some((p) => p.status?.phase !== "Failed" && p.status?.phase !== "Succeeded"));
}
