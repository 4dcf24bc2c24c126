// The StatefulSet controller (upstream's statefulset controller): claims the set's pods (matching its
// selector and named after it) and its ControllerRevisions, records the current template as the update
// revision, runs one pass of updateStatefulSet, and reports the status — the rolling update complete
// (currentRevision = updateRevision) once every pod is updated and ready.
import type { Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { NAMESPACE_INDEX, namespaceIndex, objectOf, type DeletedFinalStateUnknown } from "../client/store.ts";
import { labelSelector } from "../scheduler/framework/selectors.ts";
import { ClaimManager, controllerOf, controllerRefTo, resolveControllerRef, type OwnerReference } from "./controllerref.ts";
import { KeyedController, splitKey, type ControllerContext, type ControllerInit } from "./framework.ts";
import { byNumber, createRevision, hashRevision, nextNumber, newRevision, renumber, REVISION_HASH_LABEL, sameData, truncateHistory, type RevisionScheme } from "./history.ts";
import { StatefulPodControl } from "./statefulset-podcontrol.ts";
import { isMemberOf, revisionOf } from "./statefulset-pods.ts";
import { updateStatefulSet, type Revisions } from "./statefulset-update.ts";
import { writeStatus } from "./status.ts";

const KIND = "StatefulSet";
const STATUS_FIELDS = ["observedGeneration", "replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "currentRevision", "updateRevision", "collisionCount"];

/** A StatefulSet's revisions hash their data (HashControllerRevision) and carry the hash label. */
const SCHEME: RevisionScheme = {
  hash: (_set, data, collisionCount) => hashRevision(data, collisionCount),
  labels: (hash) => ({ [REVISION_HASH_LABEL]: hash }),
};

export class StatefulSetController extends KeyedController {
  private readonly sets: SharedInformer;
  private readonly pods: SharedInformer;
  private readonly revisions: SharedInformer;
  private readonly control: StatefulPodControl;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    super("statefulset");
    this.recorder = ctx.events.newRecorder("statefulset-controller");
    this.control = new StatefulPodControl(ctx.client, this.recorder);
    const byNamespace = { indexers: { [NAMESPACE_INDEX]: namespaceIndex } };
    this.sets = ctx.factory.informerFor(RESOURCES.statefulsets, byNamespace);
    this.pods = ctx.factory.informerFor(RESOURCES.pods, byNamespace);
    this.revisions = ctx.factory.informerFor(RESOURCES.controllerrevisions, byNamespace);
    this.sets.addEventHandler({ add: this.enqueue, update: (_o, cur) => this.enqueue(cur), delete: this.enqueue });
    this.pods.addEventHandler({
      add: (p) => this.podChanged(p),
      update: (old, cur) => {
        if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
        const oldRef = controllerOf(old);
        if (oldRef && oldRef.uid !== controllerOf(cur)?.uid) this.podChanged(old);
        this.podChanged(cur);
      },
      delete: (p) => this.podChanged(p),
    });
  }

  /** Queues the pod's set, or for an orphan every set that could adopt it. */
  private podChanged(obj: Obj | DeletedFinalStateUnknown): void {
    const pod = objectOf(obj);
    const ref = controllerOf(pod);
    if (ref) {
      const set = resolveControllerRef(this.sets.store, pod.metadata.namespace, ref, KIND);
      if (set) this.enqueue(set);
      return;
    }
    if (pod.metadata.deletionTimestamp) return;
    for (const set of this.sets.store.byIndex(NAMESPACE_INDEX, pod.metadata.namespace)) {
      const sel = labelSelector(set.spec?.selector);
      if (!sel.everything && sel.matches(pod.metadata.labels) && isMemberOf(set, pod)) this.enqueue(set);
    }
  }

  protected async sync(key: string): Promise<void> {
    const set = this.sets.store.get(key);
    if (!set) return;
    const { namespace } = splitKey(key);
    const ref = controllerRefTo(set, "apps/v1", KIND);
    const selector = labelSelector(set.spec?.selector);
    const fresh = () => this.ctx.client.get(RESOURCES.statefulsets, set.metadata.name, { namespace });
    const uid = set.metadata.uid;
    const candidates = this.pods.store.byIndex(NAMESPACE_INDEX, namespace!)
      .filter((p) => controllerOf(p)?.uid === uid || (!controllerOf(p) && isMemberOf(set, p)));
    const pods = await new ClaimManager(this.ctx.client, RESOURCES.pods, set, ref, selector, fresh).claim(candidates);
    const revisions = await new ClaimManager(this.ctx.client, RESOURCES.controllerrevisions, set, ref, selector, fresh)
      .claim(this.revisions.store.byIndex(NAMESPACE_INDEX, namespace!));
    const rev = await this.revisionsOf(set, ref, revisions);
    const status = await updateStatefulSet(set, ref, rev, pods, this.control);
    await this.writeStatus(set, this.completeRollingUpdate(set, status));
    const live = new Set([rev.current.metadata.name, rev.update.metadata.name, ...pods.map(revisionOf).filter((r): r is string => !!r)]);
    await truncateHistory(this.ctx.client, revisions, live, set.spec?.revisionHistoryLimit ?? 10);
  }

  /**
   * The revision the set's pods are at (status.currentRevision, else the update revision) and the one its
   * template makes (an equal existing revision renumbered as the newest, or a new one) (getStatefulSetRevisions).
   */
  private async revisionsOf(set: Obj, ref: OwnerReference, revisions: Obj[]): Promise<Revisions> {
    const sorted = [...revisions].sort(byNumber);
    let collisionCount = set.status?.collisionCount ?? 0;
    const next = nextNumber(sorted);
    const wanted = newRevision(set, ref, SCHEME, next, collisionCount);
    const equal = sorted.filter((r) => sameData(r, wanted));
    let update: Obj;
    if (equal.length && equal[equal.length - 1] === sorted[sorted.length - 1]) {
      update = equal[equal.length - 1];
    } else if (equal.length) {
      update = await renumber(this.ctx.client, equal[equal.length - 1], next);
    } else {
      ({ revision: update, collisionCount } = await createRevision(this.ctx.client, set, ref, SCHEME, next, collisionCount));
    }
    const current = sorted.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  /** Once every pod is updated and ready, the update revision is the current one. */
  private completeRollingUpdate(set: Obj, status: Obj): Obj {
    const replicas = status.replicas;
    if (set.spec?.updateStrategy?.type === "RollingUpdate" && status.updatedReplicas === replicas && status.readyReplicas === replicas) {
      return { ...status, currentReplicas: status.updatedReplicas, currentRevision: status.updateRevision };
    }
    return status;
  }

  private async writeStatus(set: Obj, status: Obj): Promise<void> {
    const cur = set.status ?? {};
    if (STATUS_FIELDS.every((k) => (cur[k] ?? 0) === (status[k] ?? 0))) return;
    await writeStatus(this.ctx.client, RESOURCES.statefulsets, { ...set, status: { ...cur, ...status } });
  }
}

export const initStatefulSetController: ControllerInit = (ctx) => new StatefulSetController(ctx);
