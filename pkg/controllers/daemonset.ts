// The DaemonSet controller (upstream's daemon controller, v1.21): one pod on every node the DaemonSet's
// pods belong on (daemonset-nodes.ts), bound there by node affinity for the scheduler to place; failed
// pods, extra pods and pods on nodes they no longer fit are deleted; RollingUpdate replaces old pods
// within maxUnavailable (daemonset-update.ts), OnDelete only when they are deleted. The template is kept as
// ControllerRevisions; the pods carry the revision's hash in controller-revision-hash.
import { isNotFound, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { NAMESPACE_INDEX, namespaceIndex, objectOf, type DeletedFinalStateUnknown } from "../client/store.ts";
import type { Node } from "../scheduler/framework/api.ts";
import { labelSelector } from "../scheduler/framework/selectors.ts";
import { Backoff } from "./backoff.ts";
import { ClaimManager, controllerOf, controllerRefTo, resolveControllerRef, type OwnerReference } from "./controllerref.ts";
import { daemonPodTemplate, isPodUpdated, placement, probePod, targetNode } from "./daemonset-nodes.ts";
import { podsToReplace } from "./daemonset-update.ts";
import { computeHash } from "./deployment-util.ts";
import { Expectations } from "./expectations.ts";
import { keyOf, KeyedController, splitKey, type ControllerContext, type ControllerInit } from "./framework.ts";
import { byNumber, createRevision, nextNumber, POD_REVISION_LABEL, renumber, sameData, templatePatch, truncateHistory, type RevisionScheme } from "./history.ts";
import { BURST_REPLICAS, PodControl, slowStartBatch } from "./podcontrol.ts";
import { isPodAvailable, isPodReady } from "./podutil.ts";
import { writeStatus } from "./status.ts";

const KIND = "DaemonSet";
const STATUS_FIELDS = ["desiredNumberScheduled", "currentNumberScheduled", "numberMisscheduled", "numberReady", "updatedNumberScheduled",
  "numberAvailable", "numberUnavailable", "observedGeneration", "collisionCount"];

/** A DaemonSet's revisions hash its template (ComputeHash) and carry the hash as the pods do. */
const SCHEME: RevisionScheme = {
  hash: (ds, _data, collisionCount) => computeHash(ds.spec.template, collisionCount),
  labels: (hash) => ({ [POD_REVISION_LABEL]: hash }),
};

const created = (p: Obj) => Date.parse(p.metadata.creationTimestamp ?? "") || 0;
const oldestFirst = (a: Obj, b: Obj) => created(a) - created(b) || (a.metadata.name < b.metadata.name ? -1 : 1);
const sameJSON = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
/** The condition statuses of a node, which decide nothing here but are upstream's reason to look again. */
const conditionStatuses = (n: Obj) => (n.status?.conditions ?? []).map((c: Obj) => `${c.type}=${c.status}`).sort().join(",");

export class DaemonSetController extends KeyedController {
  private readonly expectations = new Expectations();
  /** Upstream's failedPodsBackoff: 1 s doubling to 15 min per DaemonSet and node. */
  private readonly failedPods = new Backoff(1000, 15 * 60_000);
  private readonly sets: SharedInformer;
  private readonly pods: SharedInformer;
  private readonly nodes: SharedInformer;
  private readonly revisions: SharedInformer;
  private readonly podControl: PodControl;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    super("daemonset");
    this.recorder = ctx.events.newRecorder("daemonset-controller");
    this.podControl = new PodControl(ctx.client, this.recorder);
    const byNamespace = { indexers: { [NAMESPACE_INDEX]: namespaceIndex } };
    this.sets = ctx.factory.informerFor(RESOURCES.daemonsets, byNamespace);
    this.pods = ctx.factory.informerFor(RESOURCES.pods, byNamespace);
    this.revisions = ctx.factory.informerFor(RESOURCES.controllerrevisions, byNamespace);
    this.nodes = ctx.factory.informerFor(RESOURCES.nodes);
    this.sets.addEventHandler({
      add: this.enqueue,
      update: (_o, cur) => this.enqueue(cur),
      delete: (ds) => { this.expectations.forget(keyOf(ds)); this.enqueue(ds); },
    });
    this.pods.addEventHandler({
      add: (p) => this.podChanged(p, true),
      update: (old, cur) => {
        if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
        const oldRef = controllerOf(old);
        if (oldRef && oldRef.uid !== controllerOf(cur)?.uid) this.podChanged(old, false);
        if (cur.metadata.deletionTimestamp) return this.podDeleted(cur);
        this.podChanged(cur, false);
        // a pod that just became ready is available minReadySeconds later: look again then
        const ds = this.ownerOf(cur), minReady = ds?.spec?.minReadySeconds ?? 0;
        if (ds && minReady > 0 && !isPodReady(old) && isPodReady(cur)) this.queue.addAfter(keyOf(ds), minReady * 1000 + 1000);
      },
      delete: (p) => this.podDeleted(p),
    });
    this.nodes.addEventHandler({
      add: () => this.enqueueAll(),
      update: (old, cur) => {
        const changed = !sameJSON(old.metadata.labels, cur.metadata.labels) || !sameJSON(old.spec, cur.spec) || conditionStatuses(old) !== conditionStatuses(cur);
        if (changed) this.enqueueAll();
      },
      delete: () => this.enqueueAll(),
    });
  }

  private enqueueAll(): void { for (const ds of this.sets.store.list()) this.enqueue(ds); }

  private ownerOf(pod: Obj): Obj | undefined {
    return resolveControllerRef(this.sets.store, pod.metadata.namespace, controllerOf(pod), KIND);
  }

  /** Queues the pod's DaemonSet (a creation it expected, when `added`), or for an orphan every DaemonSet that could adopt it. */
  private podChanged(pod: Obj, added: boolean): void {
    if (added && pod.metadata.deletionTimestamp) return this.podDeleted(pod);
    if (controllerOf(pod)) {
      const ds = this.ownerOf(pod);
      if (!ds) return;
      if (added) this.expectations.creationObserved(keyOf(ds));
      this.enqueue(ds);
      return;
    }
    for (const ds of this.sets.store.byIndex(NAMESPACE_INDEX, pod.metadata.namespace)) {
      const sel = labelSelector(ds.spec?.selector);
      if (!sel.everything && sel.matches(pod.metadata.labels)) this.enqueue(ds);
    }
  }

  private podDeleted(obj: Obj | DeletedFinalStateUnknown): void {
    const pod = objectOf(obj);
    const ds = this.ownerOf(pod);
    if (!ds) return;
    this.expectations.deletionObserved(keyOf(ds), keyOf(pod));
    this.enqueue(ds);
  }

  protected async sync(key: string): Promise<void> {
    const ds = this.sets.store.get(key);
    if (!ds) {
      this.expectations.forget(key);
      return;
    }
    const selector = labelSelector(ds.spec?.selector);
    if (selector.everything) {
      this.recorder.event(ds, undefined, "Warning", "SelectingAll", "Sync", "This daemon set is selecting all pods. A non-empty selector is required.");
      return;
    }
    if (ds.metadata.deletionTimestamp) return;
    const { namespace } = splitKey(key);
    const ref = controllerRefTo(ds, "apps/v1", KIND);
    const fresh = () => this.ctx.client.get(RESOURCES.daemonsets, ds.metadata.name, { namespace });
    const revisions = await new ClaimManager(this.ctx.client, RESOURCES.controllerrevisions, ds, ref, selector, fresh)
      .claim(this.revisions.store.byIndex(NAMESPACE_INDEX, namespace!));
    const { current, collisionCount, old } = await this.history(ds, ref, revisions);
    const hash: string = current.metadata.labels?.[POD_REVISION_LABEL] ?? "";
    // decided before the pods are read: a creation observed meanwhile is then in what is read
    const satisfied = this.expectations.satisfied(key);
    const pods = await new ClaimManager(this.ctx.client, RESOURCES.pods, ds, ref, selector, fresh)
      .claim(this.pods.store.byIndex(NAMESPACE_INDEX, namespace!).filter((p) => controllerOf(p)?.uid === ds.metadata.uid || !controllerOf(p)));
    const byNode = this.podsByNode(pods);
    const nodes = this.nodes.store.list() as Node[];
    let error: Error | undefined;
    if (satisfied) {
      const managed = await this.manage(key, ds, ref, nodes, byNode, hash);
      error = managed.error;
      // the rolling update works from what the pods are, so not while pods it just made or deleted are unseen
      if (!managed.changed && ds.spec?.updateStrategy?.type !== "OnDelete") {
        const desired = this.placements(ds, nodes).filter(([, p]) => p.shouldRun).length;
        error = await this.syncNodes(key, ds, ref, podsToReplace(ds, byNode, hash, desired), [], hash);
      }
      const live = new Set(pods.map((p) => p.metadata.labels?.[POD_REVISION_LABEL]).filter(Boolean));
      await truncateHistory(this.ctx.client, old.filter((r) => !live.has(r.metadata.labels?.[POD_REVISION_LABEL])), new Set(), ds.spec?.revisionHistoryLimit ?? 10);
    }
    await this.writeStatus(ds, this.status(ds, nodes, byNode, hash, collisionCount));
    if (error) throw error;
  }

  private podsByNode(pods: Obj[]): Map<string, Obj[]> {
    const byNode = new Map<string, Obj[]>();
    for (const p of pods) {
      const node = targetNode(p);
      if (node === undefined) continue;
      byNode.set(node, [...(byNode.get(node) ?? []), p]);
    }
    return byNode;
  }

  private placements(ds: Obj, nodes: Node[]) {
    const pod = probePod(ds);
    return nodes.map((n) => [n, placement(ds, pod, n)] as const);
  }

  /** Creates the pods missing on nodes that should run one, deletes those that should not be (manage). */
  private async manage(key: string, ds: Obj, ref: OwnerReference, nodes: Node[], byNode: Map<string, Obj[]>, hash: string): Promise<{ changed: boolean; error?: Error }> {
    const needPods: string[] = [], toDelete: Obj[] = [];
    for (const [node, { shouldRun, shouldContinueRunning }] of this.placements(ds, nodes)) {
      const name = node.metadata.name!;
      const pods = byNode.get(name) ?? [];
      if (shouldRun && !pods.length) needPods.push(name);
      else if (shouldContinueRunning) toDelete.push(...this.extraPods(key, ds, name, pods));
      else toDelete.push(...pods.filter((p) => !p.metadata.deletionTimestamp));
    }
    if (!toDelete.length && !needPods.length) return { changed: false };
    return { changed: true, error: await this.syncNodes(key, ds, ref, toDelete, needPods, hash) };
  }

  /** Of the pods on a node that may keep one: the failed ones (paced by a backoff) and all but the oldest other. */
  private extraPods(key: string, ds: Obj, node: string, pods: Obj[]): Obj[] {
    const extra: Obj[] = [], running: Obj[] = [];
    for (const p of pods) {
      if (p.metadata.deletionTimestamp) continue;
      if (p.status?.phase !== "Failed") {
        running.push(p);
        continue;
      }
      // a pod that keeps failing is deleted (and made again) less and less often
      const backoffKey = `${ds.metadata.uid}/${ds.status?.observedGeneration ?? 0}/${node}`;
      const wait = this.failedPods.remaining(backoffKey);
      if (wait > 0) {
        this.queue.addAfter(key, wait);
        continue;
      }
      this.failedPods.next(backoffKey);
      this.recorder.event(ds, p, "Warning", "FailedDaemonPod", "Sync", `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${node}, will try to kill it`);
      extra.push(p);
    }
    return [...extra, ...running.sort(oldestFirst).slice(1)];
  }

  /** Deletes `toDelete` and creates a pod on each of `nodes` (syncNodes), expecting both. */
  private async syncNodes(key: string, ds: Obj, ref: OwnerReference, toDelete: Obj[], nodes: string[], hash: string): Promise<Error | undefined> {
    const creations = nodes.slice(0, BURST_REPLICAS), deletions = toDelete.slice(0, BURST_REPLICAS);
    if (!creations.length && !deletions.length) return undefined;
    this.expectations.expect(key, creations.length, deletions.map(keyOf));
    const errors: Error[] = [];
    const deleting = Promise.all(deletions.map(async (pod) => {
      try {
        await this.podControl.delete(pod, ds);
      } catch (e) {
        this.expectations.deletionObserved(key, keyOf(pod));
        if (!isNotFound(e)) errors.push(e as Error);
      }
    }));
    let next = 0;
    const { ok, error } = await slowStartBatch(creations.length, 1, () => this.podControl.create(daemonPodTemplate(ds, hash, creations[next++]), ds, ref));
    // creations never made will never be observed
    for (let i = ok; i < creations.length; i++) this.expectations.creationObserved(key);
    await deleting;
    return error ?? errors[0];
  }

  /**
   * The revision of the current template — an equal one renumbered as the newest, or a new one — and the
   * others (constructHistory).
   */
  private async history(ds: Obj, ref: OwnerReference, revisions: Obj[]): Promise<{ current: Obj; old: Obj[]; collisionCount: number }> {
    const data = templatePatch(ds);
    const matching = revisions.filter((r) => sameData(r, { data })).sort(byNumber);
    const old = revisions.filter((r) => !matching.includes(r));
    const next = nextNumber(old);
    let collisionCount = ds.status?.collisionCount ?? 0;
    let current: Obj;
    if (!matching.length) {
      ({ revision: current, collisionCount } = await createRevision(this.ctx.client, ds, ref, SCHEME, next, collisionCount));
    } else {
      current = matching[matching.length - 1];
      // duplicates of the current revision are dropped
      await truncateHistory(this.ctx.client, matching.slice(0, -1), new Set(), 0);
      if ((current.revision ?? 0) < next) current = await renumber(this.ctx.client, current, next);
    }
    return { current, old, collisionCount };
  }

  private status(ds: Obj, nodes: Node[], byNode: Map<string, Obj[]>, hash: string, collisionCount: number): Obj {
    const minReady = ds.spec?.minReadySeconds ?? 0, now = Date.now();
    let desired = 0, current = 0, misscheduled = 0, ready = 0, available = 0, updated = 0;
    for (const [node, { shouldRun }] of this.placements(ds, nodes)) {
      const pods = byNode.get(node.metadata.name!) ?? [];
      if (!shouldRun) {
        if (pods.length) misscheduled++;
        continue;
      }
      desired++;
      if (!pods.length) continue;
      current++;
      const pod = [...pods].sort(oldestFirst)[0];
      if (isPodReady(pod)) ready++;
      if (isPodAvailable(pod, minReady, now)) available++;
      if (isPodUpdated(ds, pod, hash)) updated++;
    }
    const st: Obj = {
      desiredNumberScheduled: desired, currentNumberScheduled: current, numberMisscheduled: misscheduled, numberReady: ready,
      updatedNumberScheduled: updated, numberAvailable: available, numberUnavailable: desired - available, observedGeneration: ds.metadata.generation,
    };
    if (collisionCount) st.collisionCount = collisionCount;
    return st;
  }

  private async writeStatus(ds: Obj, status: Obj): Promise<void> {
    const cur = ds.status ?? {};
    if (STATUS_FIELDS.every((k) => (cur[k] ?? 0) === (status[k] ?? 0))) return;
    await writeStatus(this.ctx.client, RESOURCES.daemonsets, { ...ds, status: { ...cur, ...status } });
  }
}

export const initDaemonSetController: ControllerInit = (ctx) => new DaemonSetController(ctx);
