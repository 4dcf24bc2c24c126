// What every Deployment strategy shares (upstream's deployment sync.go): finding or creating the new
// ReplicaSet and keeping revisions, scaling ReplicaSets with ScalingReplicaSet events (proportionally
// while a rollout is under way), cleaning up old ReplicaSets past revisionHistoryLimit, and status.
import { isAlreadyExists, type Client, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import { RESOURCES } from "../client/resources.ts";
import { getCondition, newCondition, setCondition } from "./conditions.ts";
import { controllerOf, controllerRefTo } from "./controllerref.ts";
import {
  activeReplicaSets, actualReplicas, availableReplicas, byCreation, byRevision, computeHash, desiredReplicasAnnotation, equalIgnoreHash,
  findNewReplicaSet, hasProgressDeadline, isRollingUpdate, isSaturated, maxReplicasAnnotation, maxRevision, maxSurge, maxUnavailable,
  newRSNewReplicas, readyReplicas, replicasOf, REVISION, setNewReplicaSetAnnotations, setReplicasAnnotations, specReplicas,
  TEMPLATE_HASH_LABEL,
} from "./deployment-util.ts";
import { KeyedController } from "./framework.ts";

export interface ReplicaSets { newRS?: Obj; oldRSs: Obj[] }

const sameJSON = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export abstract class DeploymentSyncer extends KeyedController {
  protected abstract readonly client: Client;
  protected abstract readonly recorder: EventRecorder;
  /** The Deployment as the informer holds it (to tell which annotations a write must change). */
  protected abstract stored(d: Obj): Obj | undefined;
  /** The resourceVersion of each Deployment's last write here, by key (see `cacheBehind`). */
  private readonly lastWritten = new Map<string, string>();

  /**
   * True while the informer has not yet seen this controller's last write of the Deployment: a sync now
   * would work from a stale copy and fail on a conflict; the write's own event queues the next sync.
   */
  protected cacheBehind(key: string, cached: Obj): boolean {
    const written = this.lastWritten.get(key);
    if (written === undefined) return false;
    if (/^\d+$/.test(written) && /^\d+$/.test(cached.metadata.resourceVersion ?? "") && BigInt(cached.metadata.resourceVersion) < BigInt(written)) return true;
    this.lastWritten.delete(key);
    return false;
  }

  /** The new ReplicaSet (created when `create` and missing) and the others, with the revision synced. */
  async replicaSetsAndSyncRevision(d: Obj, rsList: Obj[], create: boolean): Promise<ReplicaSets> {
    const newFound = findNewReplicaSet(d, rsList);
    const oldRSs = rsList.filter((rs) => rs !== newFound);
    const newRS = await this.newReplicaSet(d, newFound, oldRSs, create);
    return { newRS, oldRSs };
  }

  private async newReplicaSet(d: Obj, existing: Obj | undefined, oldRSs: Obj[], create: boolean): Promise<Obj | undefined> {
    const newRevision = maxRevision(oldRSs) + 1;
    if (existing) {
      let rs = structuredClone(existing);
      const annotated = setNewReplicaSetAnnotations(d, rs, newRevision, true);
      const minReady = d.spec.minReadySeconds ?? 0;
      if (annotated || (rs.spec.minReadySeconds ?? 0) !== minReady) {
        rs.spec.minReadySeconds = minReady;
        rs = await this.client.update(RESOURCES.replicasets, rs, { namespace: rs.metadata.namespace });
      }
      let changed = this.setDeploymentRevision(d, rs.metadata.annotations?.[REVISION]);
      if (hasProgressDeadline(d) && !getCondition(d.status?.conditions, "Progressing")) {
        d.status.conditions = setCondition(d.status.conditions, newCondition("Progressing", "True", "FoundNewReplicaSet", `Found new replica set "${rs.metadata.name}"`));
        changed = true;
      }
      if (changed) await this.writeStatus(d);
      return rs;
    }
    if (!create) return undefined;

    const hash = computeHash(d.spec.template, d.status?.collisionCount);
    const template = structuredClone(d.spec.template);
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [TEMPLATE_HASH_LABEL]: hash } };
    const selector = structuredClone(d.spec.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [TEMPLATE_HASH_LABEL]: hash };
    const rs: Obj = {
      apiVersion: "apps/v1", kind: "ReplicaSet",
      metadata: { name: `${d.metadata.name}-${hash}`, namespace: d.metadata.namespace, ownerReferences: [controllerRefTo(d, "apps/v1", "Deployment")], labels: template.metadata.labels },
      spec: { replicas: 0, minReadySeconds: d.spec.minReadySeconds ?? 0, selector, template },
    };
    const replicas = newRSNewReplicas(d, [...oldRSs, rs], rs);
    rs.spec.replicas = replicas;
    setNewReplicaSetAnnotations(d, rs, newRevision, false);

    let made: Obj, existed = false;
    try {
      made = await this.client.create(RESOURCES.replicasets, rs, { namespace: d.metadata.namespace });
    } catch (e) {
      if (!isAlreadyExists(e)) {
        if (hasProgressDeadline(d)) {
          d.status.conditions = setCondition(d.status.conditions, newCondition("Progressing", "False", "ReplicaSetCreateError", `Failed to create new replica set "${rs.metadata.name}": ${(e as Error).message}`));
          await this.writeStatus(d).catch(() => {});
        }
        this.recorder.event(d, undefined, "Warning", "FailedCreate", "Create", `Failed to create new replica set "${rs.metadata.name}": ${(e as Error).message}`);
        throw e;
      }
      // ours already (the cache lagged), or a hash collision: then the next hash is tried
      const found = await this.client.get(RESOURCES.replicasets, rs.metadata.name, { namespace: d.metadata.namespace });
      if (controllerOf(found)?.uid !== d.metadata.uid || !equalIgnoreHash(found.spec?.template, d.spec.template)) {
        d.status.collisionCount = (d.status.collisionCount ?? 0) + 1;
        await this.writeStatus(d);
        throw new Error(`found a hash collision for deployment "${d.metadata.name}" - bumping collisionCount (${d.status.collisionCount - 1}->${d.status.collisionCount}) to resolve it`);
      }
      made = found;
      existed = true;
    }
    if (!existed && replicas > 0) this.recorder.event(d, made, "Normal", "ScalingReplicaSet", "Scaling", `Scaled up replica set ${made.metadata.name} to ${replicas}`);
    let changed = this.setDeploymentRevision(d, String(newRevision));
    if (!existed && hasProgressDeadline(d)) {
      d.status.conditions = setCondition(d.status.conditions, newCondition("Progressing", "True", "NewReplicaSetCreated", `Created new replica set "${made.metadata.name}"`));
      changed = true;
    }
    if (changed) await this.writeStatus(d);
    return made;
  }

  /** Records the revision on the Deployment (written with its status); true when it changed. */
  private setDeploymentRevision(d: Obj, revision: string | undefined): boolean {
    if (revision === undefined || d.metadata.annotations?.[REVISION] === revision) return false;
    d.metadata.annotations = { ...(d.metadata.annotations ?? {}), [REVISION]: revision };
    return true;
  }

  /**
   * Writes the working copy's status, and first its revision annotation if that changed (Kite's status
   * subresource keeps metadata as stored). `d` takes the written resourceVersion.
   */
  async writeStatus(d: Obj): Promise<void> {
    const ns = d.metadata.namespace;
    const rev = d.metadata.annotations?.[REVISION];
    if (rev !== undefined && this.stored(d)?.metadata.annotations?.[REVISION] !== rev) {
      // an update, as upstream writes it (the controller's role may update deployments, not patch them)
      const updated = await this.client.update(RESOURCES.deployments, d, { namespace: ns });
      d.metadata.resourceVersion = updated.metadata.resourceVersion;
    }
    const written = await this.client.update(RESOURCES.deployments, d, { namespace: ns, subresource: "status" });
    d.metadata.resourceVersion = written.metadata.resourceVersion;
    this.lastWritten.set(`${ns}/${d.metadata.name}`, written.metadata.resourceVersion);
  }

  /** Scales a ReplicaSet with a ScalingReplicaSet event; returns whether it changed and the ReplicaSet. */
  async scaleAndRecord(rs: Obj, replicas: number, d: Obj): Promise<[boolean, Obj]> {
    if (replicasOf(rs) === replicas) return [false, rs];
    return [true, await this.scaleReplicaSet(rs, replicas, d, replicasOf(rs) < replicas ? "up" : "down")];
  }

  async scaleReplicaSet(rs: Obj, replicas: number, d: Obj, op: string): Promise<Obj> {
    const copy = structuredClone(rs);
    const resize = replicasOf(rs) !== replicas;
    const annotated = setReplicasAnnotations(copy, replicasOf(d), replicasOf(d) + maxSurge(d));
    if (!resize && !annotated) return rs;
    copy.spec.replicas = replicas;
    const written = await this.client.update(RESOURCES.replicasets, copy, { namespace: rs.metadata.namespace });
    if (resize) this.recorder.event(d, written, "Normal", "ScalingReplicaSet", "Scaling", `Scaled ${op} replica set ${rs.metadata.name} to ${replicas}`);
    return written;
  }

  /** A scale of the Deployment (or a paused one): resize ReplicaSets, no rollout (upstream's sync). */
  async syncScale(d: Obj, rsList: Obj[]): Promise<void> {
    const { newRS, oldRSs } = await this.replicaSetsAndSyncRevision(d, rsList, false);
    const scaled = await this.scale(d, newRS, oldRSs);
    if (d.spec.paused) await this.cleanup(scaled.oldRSs, d);
    await this.syncStatus([...scaled.oldRSs, ...(scaled.newRS ? [scaled.newRS] : [])], scaled.newRS, d);
  }

  /** True when an active ReplicaSet's desired-replicas annotation differs from spec.replicas (isScalingEvent). */
  async isScalingEvent(d: Obj, rsList: Obj[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.replicaSetsAndSyncRevision(d, rsList, false);
    return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
      const desired = desiredReplicasAnnotation(rs);
      return desired !== undefined && desired !== replicasOf(d);
    });
  }

  /**
   * Brings the ReplicaSets to the Deployment's size: the one active (or latest) ReplicaSet alone, old
   * ones to 0 once the new one is saturated, or every active one in proportion to its size mid-rollout.
   */
  private async scale(d: Obj, newRS: Obj | undefined, oldRSs: Obj[]): Promise<ReplicaSets> {
    const put = (was: Obj, now: Obj) => {
      if (was === newRS) newRS = now;
      else oldRSs = oldRSs.map((rs) => (rs === was ? now : rs));
    };
    const only = activeOrLatest(newRS, oldRSs);
    if (only) {
      if (replicasOf(only) !== replicasOf(d)) put(only, (await this.scaleAndRecord(only, replicasOf(d), d))[1]);
      return { newRS, oldRSs };
    }
    if (isSaturated(d, newRS)) {
      for (const rs of activeReplicaSets(oldRSs)) put(rs, (await this.scaleAndRecord(rs, 0, d))[1]);
      return { newRS, oldRSs };
    }
    if (!isRollingUpdate(d)) return { newRS, oldRSs };
    const all = activeReplicaSets([...oldRSs, newRS]);
    const allowed = replicasOf(d) > 0 ? replicasOf(d) + maxSurge(d) : 0;
    const toAdd = allowed - specReplicas(all);
    let op = "";
    if (toAdd > 0) { all.sort(bySizeNewer); op = "up"; }
    else if (toAdd < 0) { all.sort(bySizeOlder); op = "down"; }
    let added = 0;
    const sizes = new Map<Obj, number>();
    for (const rs of all) {
      const p = toAdd !== 0 ? proportion(rs, d, toAdd, added) : 0;
      sizes.set(rs, replicasOf(rs) + p);
      added += p;
    }
    if (toAdd !== 0 && all.length) sizes.set(all[0], Math.max(0, sizes.get(all[0])! + toAdd - added));
    for (const rs of all) put(rs, await this.scaleReplicaSet(rs, sizes.get(rs)!, d, op));
    return { newRS, oldRSs };
  }

  /** Deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit. */
  async cleanup(oldRSs: Obj[], d: Obj): Promise<void> {
    const limit = d.spec.revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp).sort(byRevision);
    const diff = cleanable.length - limit;
    for (const rs of cleanable.slice(0, Math.max(0, diff))) {
      if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      await this.client.delete(RESOURCES.replicasets, rs.metadata.name, { namespace: rs.metadata.namespace }).catch((e) => { if (e?.code !== 404) throw e; });
    }
  }

  /** Writes the status computed from the ReplicaSets when it differs (syncDeploymentStatus). */
  async syncStatus(allRSs: Obj[], newRS: Obj | undefined, d: Obj): Promise<void> {
    const status = this.calculateStatus(allRSs, newRS, d);
    if (sameJSON(status, d.status)) return;
    d.status = status;
    await this.writeStatus(d);
  }

  calculateStatus(allRSs: Obj[], newRS: Obj | undefined, d: Obj): Obj {
    const available = availableReplicas(allRSs);
    const status: Obj = {
      observedGeneration: d.metadata.generation,
      replicas: actualReplicas(allRSs),
      updatedReplicas: actualReplicas([newRS]),
      readyReplicas: readyReplicas(allRSs),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, specReplicas(allRSs) - available),
    };
    let conditions = d.status?.conditions ?? [];
    conditions = available >= replicasOf(d) - maxUnavailable(d)
      ? setCondition(conditions, newCondition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability."))
      : setCondition(conditions, newCondition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability."));
    if (conditions.length) status.conditions = conditions;
    if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
    return status;
  }
}

/** Larger first, newer first among equals (ReplicaSetsBySizeNewer). */
const bySizeNewer = (a: Obj, b: Obj) => replicasOf(b) - replicasOf(a) || byCreation(b, a);
/** Larger first, older first among equals (ReplicaSetsBySizeOlder). */
const bySizeOlder = (a: Obj, b: Obj) => replicasOf(b) - replicasOf(a) || byCreation(a, b);

/** The only active ReplicaSet, or the newest when none is active; none when several are (FindActiveOrLatest). */
function activeOrLatest(newRS: Obj | undefined, oldRSs: Obj[]): Obj | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

/** This ReplicaSet's share of `toAdd` replicas, within what is left to add (GetProportion). */
function proportion(rs: Obj, d: Obj, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: Obj, d: Obj): number {
  if (replicasOf(d) === 0) return -replicasOf(rs);
  const deploymentReplicas = replicasOf(d) + maxSurge(d);
  const annotated = maxReplicasAnnotation(rs) ?? d.status?.replicas ?? 0;
  // Go's math.Round: halves away from zero
  const size = (replicasOf(rs) * deploymentReplicas) / annotated;
  if (!Number.isFinite(size)) return 0;
  return Math.sign(size) * Math.round(Math.abs(size)) - replicasOf(rs);
}
