// One pass of a StatefulSet's pods toward its spec (upstream's updateStatefulSet): missing ordinals are
// created, failed pods replaced, pods past `replicas` deleted from the highest ordinal, and with
// RollingUpdate pods of an old revision deleted from the highest ordinal down to the partition. Under
// OrderedReady each step waits until every pod before it is Running and Ready (so at most one pod is
// ever unhealthy); under Parallel creations and deletions do not wait. Returns the status it observed.
import type { Obj } from "../client/client.ts";
import type { OwnerReference } from "./controllerref.ts";
import { applyRevision } from "./history.ts";
import type { StatefulPodControl } from "./statefulset-podcontrol.ts";
import {
  identityMatches, isCreated, isFailed, isHealthy, isRunningAndReady, isTerminating, newPod, ordinalOf, revisionOf, storageMatches,
} from "./statefulset-pods.ts";

export interface Revisions { current: Obj; update: Obj; collisionCount: number }

/** The pod at `ordinal`: of the current revision below the partition during a rolling update, else of the update revision. */
function versionedPod(set: Obj, ref: OwnerReference, rev: Revisions, ordinal: number): Obj {
  const strategy = set.spec?.updateStrategy ?? {};
  const partition = strategy.rollingUpdate?.partition ?? 0;
  const keepCurrent = strategy.type === "RollingUpdate"
    && (strategy.rollingUpdate ? ordinal < partition : ordinal < (set.status?.currentReplicas ?? 0));
  const r = keepCurrent ? rev.current : rev.update;
  return newPod(applyRevision(set, r), ref, ordinal, r.metadata.name);
}

export async function updateStatefulSet(set: Obj, ref: OwnerReference, rev: Revisions, pods: Obj[], control: StatefulPodControl): Promise<Obj> {
  const currentName = rev.current.metadata.name, updateName = rev.update.metadata.name;
  const replicaCount = set.spec?.replicas ?? 1;
  const status: Obj = {
    observedGeneration: set.metadata.generation, replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0,
    currentRevision: currentName, updateRevision: updateName, collisionCount: rev.collisionCount,
  };
  const count = (pod: Obj, n: number) => {
    if (revisionOf(pod) === currentName) status.currentReplicas += n;
    if (revisionOf(pod) === updateName) status.updatedReplicas += n;
  };
  const replicas: (Obj | undefined)[] = new Array(replicaCount);
  const condemned: Obj[] = [];
  for (const pod of pods) {
    status.replicas++;
    if (isRunningAndReady(pod)) status.readyReplicas++;
    if (isCreated(pod) && !isTerminating(pod)) count(pod, 1);
    const ord = ordinalOf(pod);
    if (ord >= 0 && ord < replicaCount) replicas[ord] = pod;
    else if (ord >= replicaCount) condemned.push(pod);
  }
  for (let i = 0; i < replicaCount; i++) replicas[i] ??= versionedPod(set, ref, rev, i);
  condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
  const firstUnhealthy = [...(replicas as Obj[]), ...condemned].find((p) => !isHealthy(p));
  if (set.metadata.deletionTimestamp) return status;

  const ordered = set.spec?.podManagementPolicy !== "Parallel";
  for (let i = 0; i < replicaCount; i++) {
    let pod = replicas[i]!;
    if (isFailed(pod)) {
      control.recreatingFailed(set, pod);
      status.replicas--;
      count(pod, -1);
      await control.delete(set, pod);
      pod = replicas[i] = versionedPod(set, ref, rev, i);
    }
    if (!isCreated(pod)) {
      await control.create(set, pod);
      status.replicas++;
      count(pod, 1);
      if (ordered) return status;
      continue;
    }
    // wait for a terminating or not yet ready pod before touching the ones after it
    if (ordered && (isTerminating(pod) || !isRunningAndReady(pod))) return status;
    if (!identityMatches(set, pod) || !storageMatches(set, pod)) await control.update(applyRevision(set, rev.update), pod);
  }
  for (const pod of condemned) {
    if (ordered && isTerminating(pod)) return status;
    // only the first unhealthy pod may go while it is unhealthy
    if (ordered && !isRunningAndReady(pod) && pod !== firstUnhealthy) return status;
    if (isTerminating(pod)) continue;
    await control.delete(set, pod);
    count(pod, -1);
    if (ordered) return status;
  }
  const strategy = set.spec?.updateStrategy ?? {};
  if (strategy.type === "OnDelete") return status;
  const partition = strategy.rollingUpdate?.partition ?? 0;
  for (let i = replicaCount - 1; i >= partition; i--) {
    const pod = replicas[i]!;
    if (revisionOf(pod) !== updateName && !isTerminating(pod)) {
      await control.delete(set, pod);
      status.currentReplicas--;
      return status;
    }
    // an updated pod must be healthy before the next one goes
    if (!isHealthy(pod)) return status;
  }
  return status;
}
