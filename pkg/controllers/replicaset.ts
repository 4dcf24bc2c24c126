// The ReplicaSet and ReplicationController controllers (upstream's replicaset controller, which serves
// both): each keeps `spec.replicas` active pods matching its selector — creating from the template in
// slow-start batches, deleting the pods upstream ranks first — adopts matching orphans and releases pods
// that stop matching, and reports replicas, fullyLabeledReplicas, readyReplicas, availableReplicas
// (ready for minReadySeconds), observedGeneration and the ReplicaFailure condition.
import { isConflict, isNotFound, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import { RESOURCES, type ResourceRef } from "../client/resources.ts";
import type { SharedInformer } from "../client/informer.ts";
import { NAMESPACE_INDEX, namespaceIndex, objectOf, type DeletedFinalStateUnknown } from "../client/store.ts";
import { labelSelector, selectorFromSet, type Selector } from "../scheduler/framework/selectors.ts";
import { getCondition, newCondition, removeCondition, setCondition } from "./conditions.ts";
import { ClaimManager, CONTROLLER_UID_INDEX, controllerOf, controllerRefTo, controllerUIDIndex, resolveControllerRef } from "./controllerref.ts";
import { Expectations } from "./expectations.ts";
import { keyOf, KeyedController, splitKey, type ControllerContext, type ControllerInit } from "./framework.ts";
import { BURST_REPLICAS, PodControl, slowStartBatch } from "./podcontrol.ts";
import { podsToDelete } from "./podranking.ts";
import { isPodActive, isPodAvailable, isPodReady } from "./podutil.ts";

/** What differs between ReplicaSets and ReplicationControllers. */
interface Flavour {
  resource: ResourceRef;
  apiVersion: string;
  /** The events' reporting controller, as upstream names it. */
  component: string;
  /** The pods the object selects; an empty selector selects none when looking up a pod's owners. */
  selector(obj: Obj): Selector;
}

const REPLICASET: Flavour = {
  resource: RESOURCES.replicasets, apiVersion: "apps/v1", component: "replicaset-controller",
  selector: (rs) => labelSelector(rs.spec?.selector),
};
const REPLICATION_CONTROLLER: Flavour = {
  resource: RESOURCES.replicationcontrollers, apiVersion: "v1", component: "replication-controller",
  selector: (rc) => selectorFromSet(rc.spec?.selector),
};

const sameSets = (a: Obj | undefined, b: Obj | undefined) => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});

export class ReplicaSetController extends KeyedController {
  private readonly expectations = new Expectations();
  private readonly pods: SharedInformer;
  private readonly owners: SharedInformer;
  private readonly podControl: PodControl;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext, private readonly f: Flavour, name: string) {
    super(name);
    this.recorder = ctx.events.newRecorder(f.component);
    this.podControl = new PodControl(ctx.client, this.recorder);
    this.owners = ctx.factory.informerFor(f.resource, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } });
    this.pods = ctx.factory.informerFor(RESOURCES.pods, { indexers: { [NAMESPACE_INDEX]: namespaceIndex, [CONTROLLER_UID_INDEX]: controllerUIDIndex } });
    this.owners.addEventHandler({
      add: this.enqueue,
      update: (_old, cur) => this.enqueue(cur),
      delete: (obj) => { this.expectations.forget(keyOf(obj)); this.enqueue(obj); },
    });
    this.pods.addEventHandler({ add: (p) => this.podAdded(p), update: (o, p) => this.podUpdated(o, p), delete: (p) => this.podDeleted(p) });
  }

  private ownerOf(pod: Obj): Obj | undefined {
    return resolveControllerRef(this.owners.store, pod.metadata.namespace, controllerOf(pod), this.f.resource.kind);
  }

  /** The controllers whose selectors match an orphan pod. */
  private matchingOwners(pod: Obj): Obj[] {
    return this.owners.store.byIndex(NAMESPACE_INDEX, pod.metadata.namespace).filter((o) => {
      const sel = this.f.selector(o);
      return !sel.everything && sel.matches(pod.metadata.labels);
    });
  }

  private podAdded(pod: Obj): void {
    if (pod.metadata.deletionTimestamp) return this.podDeleted(pod);
    if (controllerOf(pod)) {
      const owner = this.ownerOf(pod);
      if (!owner) return;
      this.expectations.creationObserved(keyOf(owner));
      this.enqueue(owner);
      return;
    }
    for (const o of this.matchingOwners(pod)) this.enqueue(o);
  }

  private podUpdated(old: Obj, cur: Obj): void {
    if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
    const labelsChanged = !sameSets(old.metadata.labels, cur.metadata.labels);
    if (cur.metadata.deletionTimestamp) {
      this.podDeleted(cur);
      if (labelsChanged) this.podDeleted(old);
      return;
    }
    const oldRef = controllerOf(old), ref = controllerOf(cur);
    const refChanged = oldRef?.uid !== ref?.uid;
    if (refChanged && oldRef) {
      const prev = resolveControllerRef(this.owners.store, old.metadata.namespace, oldRef, this.f.resource.kind);
      if (prev) this.enqueue(prev);
    }
    if (ref) {
      const owner = this.ownerOf(cur);
      if (!owner) return;
      this.enqueue(owner);
      // a pod that just became ready is available minReadySeconds later: look again then
      const minReady = owner.spec?.minReadySeconds ?? 0;
      if (minReady > 0 && !isPodReady(old) && isPodReady(cur)) this.queue.addAfter(keyOf(owner), minReady * 1000 + 1000);
      return;
    }
    if (labelsChanged || refChanged) for (const o of this.matchingOwners(cur)) this.enqueue(o);
  }

  private podDeleted(obj: Obj | DeletedFinalStateUnknown): void {
    const pod = objectOf(obj);
    const owner = this.ownerOf(pod);
    if (!owner) return;
    const key = keyOf(owner);
    this.expectations.deletionObserved(key, keyOf(pod));
    this.queue.add(key);
  }

  protected async sync(key: string): Promise<void> {
    const owner = this.owners.store.get(key);
    if (!owner) {
      this.expectations.forget(key);
      return;
    }
    const needsSync = this.expectations.satisfied(key);
    const { namespace } = splitKey(key);
    const selector = this.f.selector(owner);
    const active = this.pods.store.byIndex(NAMESPACE_INDEX, namespace!).filter(isPodActive);
    const claims = new ClaimManager(this.ctx.client, RESOURCES.pods, owner, this.controllerRef(owner), selector,
      () => this.ctx.client.get(this.f.resource, owner.metadata.name, { namespace }));
    const pods = await claims.claim(active);
    let error: Error | undefined, diff = 0;
    if (needsSync && !owner.metadata.deletionTimestamp) {
      diff = pods.length - (owner.spec?.replicas ?? 1);
      error = await this.manageReplicas(key, owner, pods, diff);
    }
    const updated = await this.writeStatus(owner, this.status(owner, pods, error, diff));
    const minReady = owner.spec?.minReadySeconds ?? 0;
    const st = updated.status ?? {};
    if (!error && minReady > 0 && st.readyReplicas === owner.spec?.replicas && st.availableReplicas !== owner.spec?.replicas) {
      this.queue.addAfter(key, minReady * 1000);
    }
    if (error) throw error;
  }

  private controllerRef(owner: Obj) {
    return controllerRefTo(owner, this.f.apiVersion, this.f.resource.kind);
  }

  /** Creates or deletes pods to close `diff` (at most BURST_REPLICAS a sync); returns the first error. */
  private async manageReplicas(key: string, owner: Obj, pods: Obj[], diff: number): Promise<Error | undefined> {
    if (diff < 0) {
      const n = Math.min(-diff, BURST_REPLICAS);
      this.expectations.expectCreations(key, n);
      const ref = this.controllerRef(owner);
      const { ok, error } = await slowStartBatch(n, 1, () => this.podControl.create(owner.spec.template, owner, ref));
      // creations never made will never be observed
      for (let i = ok; i < n; i++) this.expectations.creationObserved(key);
      return error;
    }
    if (diff > 0) {
      const victims = podsToDelete(pods, this.relatedPods(owner), Math.min(diff, BURST_REPLICAS));
      this.expectations.expectDeletions(key, victims.map(keyOf));
      const errors: Error[] = [];
      await Promise.all(victims.map(async (pod) => {
        try {
          await this.podControl.delete(pod, owner);
        } catch (e) {
          // a deletion that failed will never be observed
          this.expectations.deletionObserved(key, keyOf(pod));
          if (!isNotFound(e)) errors.push(e as Error);
        }
      }));
      return errors[0];
    }
    return undefined;
  }

  /** The active pods of every controller sharing this one's controller (a Deployment's ReplicaSets). */
  private relatedPods(owner: Obj): Obj[] {
    const parent = controllerOf(owner);
    const siblings = parent
      ? this.owners.store.byIndex(NAMESPACE_INDEX, owner.metadata.namespace).filter((o) => controllerOf(o)?.uid === parent.uid)
      : [owner];
    return siblings.flatMap((o) => this.pods.store.byIndex(CONTROLLER_UID_INDEX, o.metadata.uid)).filter(isPodActive);
  }

  private status(owner: Obj, pods: Obj[], error: Error | undefined, diff: number): Obj {
    const templateLabels = selectorFromSet(owner.spec?.template?.metadata?.labels);
    const minReady = owner.spec?.minReadySeconds ?? 0;
    const now = Date.now();
    let fullyLabeled = 0, ready = 0, available = 0;
    for (const p of pods) {
      if (templateLabels.matches(p.metadata.labels)) fullyLabeled++;
      if (isPodReady(p)) ready++;
      if (isPodAvailable(p, minReady, now)) available++;
    }
    let conditions: Obj[] | undefined = owner.status?.conditions;
    const failure = getCondition(conditions, "ReplicaFailure");
    if (error && !failure) {
      conditions = setCondition(conditions, newCondition("ReplicaFailure", "True", diff < 0 ? "FailedCreate" : "FailedDelete", error.message, false));
    } else if (!error && failure) {
      conditions = removeCondition(conditions, "ReplicaFailure");
    }
    const st: Obj = {
      replicas: pods.length, fullyLabeledReplicas: fullyLabeled, readyReplicas: ready, availableReplicas: available,
      observedGeneration: owner.metadata.generation,
    };
    if (conditions?.length) st.conditions = conditions;
    return st;
  }

  /** Writes the status when it changed; one retry on a fresh copy after a conflict. */
  private async writeStatus(owner: Obj, status: Obj): Promise<Obj> {
    const cur = owner.status ?? {};
    const same = ["replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"].every((k) => (cur[k] ?? 0) === (status[k] ?? 0))
      && JSON.stringify(cur.conditions ?? []) === JSON.stringify(status.conditions ?? []);
    if (same) return owner;
    const ns = owner.metadata.namespace;
    try {
      return await this.ctx.client.update(this.f.resource, { ...owner, status }, { namespace: ns, subresource: "status" });
    } catch (e) {
      if (!isConflict(e)) throw e;
      const fresh = await this.ctx.client.get(this.f.resource, owner.metadata.name, { namespace: ns });
      if (fresh.metadata.uid !== owner.metadata.uid) return fresh;
      return await this.ctx.client.update(this.f.resource, { ...fresh, status }, { namespace: ns, subresource: "status" });
    }
  }
}

export const replicaSetController: ControllerInit = (ctx) => new ReplicaSetController(ctx, REPLICASET, "replicaset");
export const replicationControllerController: ControllerInit = (ctx) => new ReplicaSetController(ctx, REPLICATION_CONTROLLER, "replicationcontroller");
