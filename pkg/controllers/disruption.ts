// The disruption controller (upstream v1.21's): keeps each PodDisruptionBudget's status — the pods it
// expects (its pods' controllers' scale, or the pods for an integer minAvailable), how many must be healthy,
// how many are (Ready, not being deleted, not just evicted), the disruptions allowed and the DisruptionAllowed
// condition — which the pods/eviction subresource reads and decrements. Evictions the API server recorded in
// disruptedPods are forgotten once the pod is gone, or after two minutes if it never went.
import type { Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { NAMESPACE_INDEX, namespaceIndex, objectOf, type DeletedFinalStateUnknown } from "../client/store.ts";
import { rfc3339 } from "../client/time.ts";
import { labelSelector } from "../scheduler/framework/selectors.ts";
import { controllerOf, resolveControllerRef } from "./controllerref.ts";
import { scaledValue } from "./deployment-util.ts";
import { keyOf, KeyedController, type ControllerContext, type ControllerInit } from "./framework.ts";
import { isPodReady } from "./podutil.ts";

/** How long an eviction the API server recorded is awaited before the pod counts again (upstream's DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;
/** PDBs are looked at again this often, as their controllers' scale has no events of its own here. */
const RESYNC_MS = 30_000;

export interface BudgetCounts { expectedPods: number; desiredHealthy: number }

/** The pods a budget selects: policy/v1's, where an empty selector selects every pod of the namespace and a nil one none. */
export const selects = (pdb: Obj, pod: Obj): boolean => labelSelector(pdb.spec?.selector).matches(pod.metadata.labels);

/** Upstream's getExpectedPodCount: `scale` is the summed scale of the pods' controllers (thrown if unknown). */
export function expectedCounts(pdb: Obj, pods: Obj[], scale: () => number): BudgetCounts {
  const { maxUnavailable, minAvailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    const expectedPods = scale();
    return { expectedPods, desiredHealthy: Math.max(0, expectedPods - scaledValue(maxUnavailable, expectedPods, true, "0")) };
  }
  if (typeof minAvailable === "number") return { expectedPods: pods.length, desiredHealthy: minAvailable };
  if (typeof minAvailable === "string") {
    const expectedPods = scale();
    return { expectedPods, desiredHealthy: scaledValue(minAvailable, expectedPods, true, "0") };
  }
  return { expectedPods: 0, desiredHealthy: 0 };
}

/**
 * The evictions still awaited (upstream's buildDisruptedPodMap): those of pods not yet being deleted whose
 * two minutes have not run out, and when the first of them will have. Overdue ones are returned apart.
 */
export function awaitedEvictions(pdb: Obj, pods: Obj[], now: number): { awaited: Record<string, string>; overdue: Obj[]; recheckAt?: number } {
  const recorded: Record<string, string> = pdb.status?.disruptedPods ?? {};
  const awaited: Record<string, string> = {};
  const overdue: Obj[] = [];
  let recheckAt: number | undefined;
  for (const pod of pods) {
    const at = recorded[pod.metadata.name];
    if (pod.metadata.deletionTimestamp || at === undefined) continue;
    const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (expires < now) { overdue.push(pod); continue; }
    awaited[pod.metadata.name] = at;
    recheckAt = Math.min(recheckAt ?? expires, expires);
  }
  return { awaited, overdue, recheckAt };
}

/** Ready pods that are neither being deleted nor awaiting an eviction (upstream's countHealthyPods). */
export const countHealthy = (pods: Obj[], awaited: Record<string, string>): number =>
  pods.filter((p) => !p.metadata.deletionTimestamp && !(p.metadata.name in awaited) && isPodReady(p)).length;

/** The DisruptionAllowed condition as upstream's UpdateDisruptionAllowedCondition (or failSafe) sets it. */
function disruptionAllowed(status: Obj, failure?: string): Obj[] {
  const old: Obj | undefined = (status.conditions ?? []).find((c: Obj) => c.type === "DisruptionAllowed");
  const want = failure !== undefined ? "False" : status.disruptionsAllowed > 0 ? "True" : "False";
  const reason = failure !== undefined ? "SyncFailed" : want === "True" ? "SufficientPods" : "InsufficientPods";
  const cond = {
    type: "DisruptionAllowed", status: want, observedGeneration: status.observedGeneration ?? 0,
    lastTransitionTime: old?.status === want ? old.lastTransitionTime : rfc3339(new Date()), reason, message: failure ?? "",
  };
  return [...(status.conditions ?? []).filter((c: Obj) => c.type !== "DisruptionAllowed"), cond];
}

export class DisruptionController extends KeyedController {
  private readonly pods: SharedInformer;
  private readonly pdbs: SharedInformer;
  private readonly owners: Record<string, SharedInformer>;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext, private readonly now: () => number = Date.now) {
    super("disruption");
    const f = ctx.factory;
    this.pods = f.informerFor(RESOURCES.pods, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } });
    this.pdbs = f.informerFor(RESOURCES.poddisruptionbudgets, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } });
    this.owners = {
      ReplicaSet: f.informerFor(RESOURCES.replicasets), ReplicationController: f.informerFor(RESOURCES.replicationcontrollers),
      Deployment: f.informerFor(RESOURCES.deployments), StatefulSet: f.informerFor(RESOURCES.statefulsets),
    };
    this.recorder = ctx.events.newRecorder("disruption-controller");
    this.pdbs.addEventHandler({ add: this.enqueue, update: (_, cur) => this.enqueue(cur), delete: this.enqueue }, RESYNC_MS);
    const byPod = (o: Obj | DeletedFinalStateUnknown) => { const pdb = this.budgetOf(objectOf(o)); if (pdb) this.enqueue(pdb); };
    this.pods.addEventHandler({ add: byPod, update: (_, cur) => byPod(cur), delete: byPod });
  }

  /** The one budget a pod's changes concern: the first by name when several select it, as upstream's getPdbForPod. */
  private budgetOf(pod: Obj): Obj | undefined {
    if (!Object.keys(pod.metadata.labels ?? {}).length) return undefined;
    const matching = this.pdbs.store.byIndex(NAMESPACE_INDEX, pod.metadata.namespace).filter((pdb) => selects(pdb, pod));
    if (!matching.length) return undefined;
    matching.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    if (matching.length > 1) {
      this.recorder.event(pod, undefined, "Warning", "MultiplePodDisruptionBudgets", "Sync",
        `Pod "${pod.metadata.namespace}"/"${pod.metadata.name}" matches multiple PodDisruptionBudgets.  Chose "${matching[0].metadata.name}" arbitrarily.`);
    }
    return matching[0];
  }

  /** The scale of each pod's controller, counted once per controller (upstream's getExpectedScale). */
  private controllersScale(pods: Obj[]): number {
    const scales = new Map<string, number>();
    for (const pod of pods) {
      const found = this.controllerScale(pod);
      if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata.name)}`);
      scales.set(found.uid, found.replicas);
    }
    let sum = 0;
    for (const n of scales.values()) sum += n;
    return sum;
  }

  /** The pod's controller's uid and desired replicas: a Deployment's through its ReplicaSet. */
  private controllerScale(pod: Obj): { uid: string; replicas: number } | undefined {
    const ns = pod.metadata.namespace;
    const ref = controllerOf(pod);
    if (!ref) throw new Error(`found no controller ref for pod ${JSON.stringify(pod.metadata.name)}`);
    const store = this.owners[ref.kind]?.store;
    let owner = store && resolveControllerRef(store, ns, ref, ref.kind);
    if (owner && ref.kind === "ReplicaSet") {
      const deployment = resolveControllerRef(this.owners.Deployment.store, ns, controllerOf(owner), "Deployment");
      if (deployment) owner = deployment;
      else if (controllerOf(owner)?.kind === "Deployment") return undefined;
    }
    return owner ? { uid: owner.metadata.uid, replicas: owner.spec?.replicas ?? 1 } : undefined;
  }

  protected async sync(key: string): Promise<void> {
    const pdb = this.pdbs.store.get(key);
    if (!pdb) return;
    const pods = this.pods.store.byIndex(NAMESPACE_INDEX, pdb.metadata.namespace).filter((p) => selects(pdb, p));
    if (!pods.length) this.recorder.event(pdb, undefined, "Normal", "NoPods", "Sync", "No matching pods found");
    let counts: BudgetCounts;
    try {
      counts = expectedCounts(pdb, pods, () => this.controllersScale(pods));
    } catch (e) {
      this.recorder.event(pdb, undefined, "Warning", "CalculateExpectedPodCountFailed", "Sync", `Failed to calculate the number of expected pods: ${(e as Error).message}`);
      return this.failSafe(pdb, (e as Error).message);
    }
    const now = this.now();
    const { awaited, overdue, recheckAt } = awaitedEvictions(pdb, pods, now);
    for (const pod of overdue) {
      this.recorder.event(pod, undefined, "Warning", "NotDeleted", "Sync", `Pod was expected by PDB ${pdb.metadata.namespace}/${pdb.metadata.name} to be deleted but it wasn't`);
    }
    const currentHealthy = countHealthy(pods, awaited);
    const allowed = currentHealthy - counts.desiredHealthy;
    const status: Obj = {
      ...pdb.status,
      observedGeneration: pdb.metadata.generation ?? 0,
      disruptedPods: Object.keys(awaited).length ? awaited : undefined,
      disruptionsAllowed: counts.expectedPods <= 0 || allowed <= 0 ? 0 : allowed,
      currentHealthy, desiredHealthy: counts.desiredHealthy, expectedPods: counts.expectedPods,
    };
    status.conditions = disruptionAllowed(status);
    await this.writeStatus(pdb, status);
    if (recheckAt !== undefined) this.queue.addAfter(keyOf(pdb), recheckAt - now);
  }

  /** No disruptions while the budget cannot be computed (upstream's failSafe). */
  private async failSafe(pdb: Obj, why: string): Promise<void> {
    const status = { ...pdb.status, disruptionsAllowed: 0 };
    status.conditions = disruptionAllowed(status, why);
    await this.writeStatus(pdb, status);
  }

  private async writeStatus(pdb: Obj, status: Obj): Promise<void> {
    if (status.disruptedPods === undefined) delete status.disruptedPods;
    if (Bun.deepEquals(status, pdb.status ?? {})) return;
    await this.ctx.client.update(RESOURCES.poddisruptionbudgets, { ...pdb, status }, { namespace: pdb.metadata.namespace, subresource: "status" });
  }
}

export const initDisruptionController: ControllerInit = (ctx) => new DisruptionController(ctx);
