// The Deployment controller (upstream's deployment controller): claims the ReplicaSets its selector
// matches, then — unless paused or merely scaled — rolls out the template with its strategy
// (deployment-rolling.ts, deployment-recreate.ts), keeping revisions, history and status
// (deployment-sync.ts, deployment-progress.ts). `kubectl rollout undo` (client-side in kubectl 1.20)
// puts an old template back: its ReplicaSet becomes the new one again with the next revision.
import type { Client, Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { NAMESPACE_INDEX, namespaceIndex, objectOf, type DeletedFinalStateUnknown } from "../client/store.ts";
import { labelSelector } from "../scheduler/framework/selectors.ts";
import { getCondition, newCondition, setCondition } from "./conditions.ts";
import { ClaimManager, CONTROLLER_UID_INDEX, controllerOf, controllerRefTo, controllerUIDIndex, resolveControllerRef } from "./controllerref.ts";
import { rolloutRecreate } from "./deployment-recreate.ts";
import { rolloutRolling } from "./deployment-rolling.ts";
import { DeploymentSyncer } from "./deployment-sync.ts";
import { hasProgressDeadline } from "./deployment-util.ts";
import { keyOf, type ControllerContext, type ControllerInit } from "./framework.ts";

const isEmptySelector = (sel: Obj | undefined) => !sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0);

export class DeploymentController extends DeploymentSyncer {
  protected readonly client: Client;
  protected readonly recorder: EventRecorder;
  private readonly deployments: SharedInformer;
  private readonly replicaSets: SharedInformer;
  private readonly pods: SharedInformer;

  constructor(ctx: ControllerContext) {
    super("deployment");
    this.client = ctx.client;
    this.recorder = ctx.events.newRecorder("deployment-controller");
    this.deployments = ctx.factory.informerFor(RESOURCES.deployments, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } });
    this.replicaSets = ctx.factory.informerFor(RESOURCES.replicasets, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } });
    this.pods = ctx.factory.informerFor(RESOURCES.pods, { indexers: { [NAMESPACE_INDEX]: namespaceIndex, [CONTROLLER_UID_INDEX]: controllerUIDIndex } });
    this.deployments.addEventHandler({ add: this.enqueue, update: (_o, d) => this.enqueue(d), delete: this.enqueue });
    this.replicaSets.addEventHandler({
      add: (rs) => this.replicaSetChanged(undefined, rs),
      update: (old, rs) => this.replicaSetChanged(old, rs),
      delete: (rs) => this.replicaSetDeleted(rs),
    });
    this.pods.addEventHandler({ delete: (p) => this.podDeleted(p) });
  }

  protected stored(d: Obj): Obj | undefined { return this.deployments.store.get(keyOf(d)); }

  private ownerOf(rs: Obj): Obj | undefined {
    return resolveControllerRef(this.deployments.store, rs.metadata.namespace, controllerOf(rs), "Deployment");
  }

  /** Deployments whose selectors match an orphan ReplicaSet. */
  private matching(rs: Obj): Obj[] {
    return this.deployments.store.byIndex(NAMESPACE_INDEX, rs.metadata.namespace)
      .filter((d) => !isEmptySelector(d.spec?.selector) && labelSelector(d.spec.selector).matches(rs.metadata.labels));
  }

  private replicaSetChanged(old: Obj | undefined, rs: Obj): void {
    if (old?.metadata.resourceVersion === rs.metadata.resourceVersion) return;
    if (rs.metadata.deletionTimestamp && !old) return this.replicaSetDeleted(rs);
    const oldRef = old && controllerOf(old), ref = controllerOf(rs);
    if (old && oldRef && oldRef.uid !== ref?.uid) {
      const prev = resolveControllerRef(this.deployments.store, old.metadata.namespace, oldRef, "Deployment");
      if (prev) this.enqueue(prev);
    }
    if (ref) {
      const d = this.ownerOf(rs);
      if (d) this.enqueue(d);
      return;
    }
    if (!old || JSON.stringify(old.metadata.labels) !== JSON.stringify(rs.metadata.labels) || oldRef) for (const d of this.matching(rs)) this.enqueue(d);
  }

  private replicaSetDeleted(obj: Obj | DeletedFinalStateUnknown): void {
    const d = this.ownerOf(objectOf(obj));
    if (d) this.enqueue(d);
  }

  /** A Recreate rollout waits for old pods to go: their deletion may unblock it. */
  private podDeleted(obj: Obj | DeletedFinalStateUnknown): void {
    const pod = objectOf(obj);
    const rs = resolveControllerRef(this.replicaSets.store, pod.metadata.namespace, controllerOf(pod), "ReplicaSet");
    const d = rs && this.ownerOf(rs);
    if (d?.spec?.strategy?.type !== "Recreate") return;
    const left = this.replicaSets.store.byIndex(NAMESPACE_INDEX, d.metadata.namespace)
      .filter((x) => controllerOf(x)?.uid === d.metadata.uid)
      .flatMap((x) => this.pods.store.byIndex(CONTROLLER_UID_INDEX, x.metadata.uid));
    if (left.length === 0) this.enqueue(d);
  }

  private readonly requeueAfter = (d: Obj, ms: number) => (ms <= 0 ? this.queue.addRateLimited(keyOf(d)) : this.queue.addAfter(keyOf(d), ms));

  protected async sync(key: string): Promise<void> {
    const cached = this.deployments.store.get(key);
    if (!cached || this.cacheBehind(key, cached)) return;
    const d = structuredClone(cached);
    d.status ??= {};
    if (isEmptySelector(d.spec.selector)) {
      this.recorder.event(d, undefined, "Warning", "SelectingAll", "Select", "This deployment is selecting all pods. A non-empty selector is required.");
      if ((d.status.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
        d.status.observedGeneration = d.metadata.generation;
        await this.writeStatus(d);
      }
      return;
    }
    const rsList = await this.claimReplicaSets(d);
    if (d.metadata.deletionTimestamp) return this.syncStatusOnly(d, rsList);
    await this.checkPausedConditions(d);
    if (d.spec.paused || (await this.isScalingEvent(d, rsList))) return this.syncScale(d, rsList);
    if (d.spec.strategy?.type === "Recreate") {
      return rolloutRecreate(this, d, rsList, (rs) => this.pods.store.byIndex(CONTROLLER_UID_INDEX, rs.metadata.uid), this.requeueAfter);
    }
    return rolloutRolling(this, d, rsList, this.requeueAfter);
  }

  /** The ReplicaSets this Deployment owns after adopting matching orphans and releasing strays. */
  private claimReplicaSets(d: Obj): Promise<Obj[]> {
    const claims = new ClaimManager(this.client, RESOURCES.replicasets, d, controllerRefTo(d, "apps/v1", "Deployment"), labelSelector(d.spec.selector),
      () => this.client.get(RESOURCES.deployments, d.metadata.name, { namespace: d.metadata.namespace }));
    return claims.claim(this.replicaSets.store.byIndex(NAMESPACE_INDEX, d.metadata.namespace));
  }

  private async syncStatusOnly(d: Obj, rsList: Obj[]): Promise<void> {
    const { newRS, oldRSs } = await this.replicaSetsAndSyncRevision(d, rsList, false);
    await this.syncStatus([...oldRSs, ...(newRS ? [newRS] : [])], newRS, d);
  }

  /** Progressing becomes Unknown with DeploymentPaused when paused, DeploymentResumed when resumed. */
  private async checkPausedConditions(d: Obj): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const paused = getCondition(d.status.conditions, "Progressing")?.reason === "DeploymentPaused";
    let c;
    if (d.spec.paused && !paused) c = newCondition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused");
    else if (!d.spec.paused && paused) c = newCondition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed");
    if (!c) return;
    d.status.conditions = setCondition(d.status.conditions, c);
    await this.writeStatus(d);
  }
}

export const deploymentController: ControllerInit = (ctx) => new DeploymentController(ctx);
