// The RollingUpdate strategy (upstream's rolling.go): scale the new ReplicaSet up within maxSurge, then
// old ones down within maxUnavailable — unhealthy old pods first — one step per sync, each step
// driven by the ReplicaSets' status as pods become available.
import type { Obj } from "../client/client.ts";
import { deploymentComplete, syncRolloutStatus } from "./deployment-progress.ts";
import type { DeploymentSyncer } from "./deployment-sync.ts";
import { activeReplicaSets, availableReplicas, byCreation, maxUnavailable, newRSNewReplicas, replicasOf, specReplicas } from "./deployment-util.ts";

export async function rolloutRolling(dc: DeploymentSyncer, d: Obj, rsList: Obj[], requeueAfter: (d: Obj, ms: number) => void): Promise<void> {
  const r = await dc.replicaSetsAndSyncRevision(d, rsList, true);
  let newRS = r.newRS!;
  let oldRSs = r.oldRSs;
  const all = () => [...oldRSs, newRS];

  if (replicasOf(newRS) !== replicasOf(d)) {
    const target = replicasOf(newRS) > replicasOf(d) ? replicasOf(d) : newRSNewReplicas(d, all(), newRS);
    const [scaled, rs] = await dc.scaleAndRecord(newRS, target, d);
    newRS = rs;
    if (scaled) return syncRolloutStatus(dc, all(), newRS, d, requeueAfter);
  }

  const down = await reconcileOldReplicaSets(dc, d, all(), activeReplicaSets(oldRSs), newRS);
  oldRSs = oldRSs.map((rs) => down.written.get(rs) ?? rs);
  if (down.scaled) return syncRolloutStatus(dc, all(), newRS, d, requeueAfter);

  if (deploymentComplete(d, d.status ?? {})) await dc.cleanup(oldRSs, d);
  await syncRolloutStatus(dc, all(), newRS, d, requeueAfter);
}

/** Scales old ReplicaSets down as far as maxUnavailable allows; `written` maps each to its new state. */
async function reconcileOldReplicaSets(dc: DeploymentSyncer, d: Obj, allRSs: Obj[], oldRSs: Obj[], newRS: Obj): Promise<{ scaled: boolean; written: Map<Obj, Obj> }> {
  const written = new Map<Obj, Obj>();
  if (specReplicas(oldRSs) === 0) return { scaled: false, written };
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = specReplicas(allRSs) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return { scaled: false, written };

  // first the old pods that are not available anyway
  let cleaned = 0;
  for (const rs of [...oldRSs].sort(byCreation)) {
    if (cleaned >= maxScaledDown) break;
    const unavailable = replicasOf(rs) - (rs.status?.availableReplicas ?? 0);
    if (replicasOf(rs) === 0 || unavailable <= 0) continue;
    const n = Math.min(maxScaledDown - cleaned, unavailable);
    const [, now] = await dc.scaleAndRecord(rs, replicasOf(rs) - n, d);
    written.set(rs, now);
    cleaned += n;
  }
  const current = (rs: Obj) => written.get(rs) ?? rs;

  // then available ones, keeping minAvailable
  let scaledDown = 0;
  const available = availableReplicas([...oldRSs.map(current), newRS]);
  if (available > minAvailable) {
    const total = available - minAvailable;
    for (const rs of [...oldRSs].sort(byCreation)) {
      const cur = current(rs);
      if (scaledDown >= total) break;
      if (replicasOf(cur) === 0) continue;
      const n = Math.min(replicasOf(cur), total - scaledDown);
      const [, now] = await dc.scaleAndRecord(cur, replicasOf(cur) - n, d);
      written.set(rs, now);
      scaledDown += n;
    }
  }
  return { scaled: cleaned + scaledDown > 0, written };
}
