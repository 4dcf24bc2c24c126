// What the job controller needs of upstream's controller_utils.go: pods made from a template with a
// controller reference (created in slow-start batches), deleted with events, the expectations that keep a
// controller from acting on a cache that has not seen its own writes yet, and the order in which active
// pods are given up.
import type { Client, Obj } from "../client/client.ts";
import { isNotFound } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import { RESOURCES } from "../client/resources.ts";

/** metav1.NewControllerRef: the owner reference a controller puts on what it makes. */
export function controllerRef(owner: Obj): Obj {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** The controller reference among an object's owner references. */
export const controllerOf = (o: Obj): Obj | undefined => (o.metadata?.ownerReferences ?? []).find((r: Obj) => r?.controller === true);

/** The name of the index of objects by their controller's uid. */
export const CONTROLLER_UID_INDEX = "controllerUID";
export const controllerUIDIndex = (o: Obj): string[] => { const r = controllerOf(o); return r?.uid ? [r.uid] : []; };

/** Pods neither finished nor being deleted (controller.FilterActivePods). */
export const isPodActive = (p: Obj): boolean => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed" && !p.metadata.deletionTimestamp;

/** A pod of the template, owned by `owner`, named `<owner>-<random>` unless `generateName` says otherwise. */
export function podFromTemplate(template: Obj, owner: Obj, generateName = `${owner.metadata.name}-`): Obj {
  const meta = template.metadata ?? {};
  const pod: Obj = {
    apiVersion: "v1", kind: "Pod",
    metadata: { generateName, namespace: owner.metadata.namespace, labels: { ...(meta.labels ?? {}) }, annotations: { ...(meta.annotations ?? {}) }, ownerReferences: [controllerRef(owner)] },
    spec: structuredClone(template.spec),
  };
  if (meta.finalizers) pod.metadata.finalizers = [...meta.finalizers];
  if (Object.keys(pod.metadata.labels).length === 0) throw new Error("unable to create pods, no labels");
  return pod;
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const readyCondition = (p: Obj) => (p.status?.conditions ?? []).find((c: Obj) => c.type === "Ready");
const isReady = (p: Obj) => readyCondition(p)?.status === "True";
const restarts = (p: Obj) => (p.status?.containerStatuses ?? []).reduce((n: number, c: Obj) => Math.max(n, c.restartCount ?? 0), 0);
const time = (s?: string) => (s ? Date.parse(s) : 0);

/**
 * controller.ActivePods' order: the pods to give up first come first — unscheduled before scheduled,
 * pending before unknown before running, not ready before ready, ready for less time first, more restarts
 * first, newer first.
 */
export function compareForRemoval(a: Obj, b: Obj): number {
  const unscheduled = Number(!!a.spec?.nodeName) - Number(!!b.spec?.nodeName);
  if (unscheduled) return unscheduled;
  const phase = (PHASE_RANK[a.status?.phase] ?? 0) - (PHASE_RANK[b.status?.phase] ?? 0);
  if (phase) return phase;
  const ready = Number(isReady(a)) - Number(isReady(b));
  if (ready) return ready;
  if (isReady(a) && isReady(b)) {
    const since = time(readyCondition(b)?.lastTransitionTime) - time(readyCondition(a)?.lastTransitionTime);
    if (since) return since;
  }
  const r = restarts(b) - restarts(a);
  if (r) return r;
  return time(b.metadata.creationTimestamp) - time(a.metadata.creationTimestamp);
}

/** Upstream's SlowStartInitialBatchSize: create 1, then 2, 4, ... as long as none fails. */
const SLOW_START_INITIAL_BATCH = 1;

/**
 * Runs `create(i)` for i in [0, count) in slow-start batches; stops after a batch with a
 * failure. Returns how many were not created and the first error.
 */
export async function createInBatches(count: number, create: (i: number) => Promise<void>): Promise<{ skipped: number; failed: number; error?: unknown }> {
  let done = 0, failed = 0, error: unknown;
  for (let batch = Math.min(count, SLOW_START_INITIAL_BATCH); done < count; batch = Math.min(2 * batch, count - done)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, (_, k) => create(done + k)));
    done += batch;
    const errs = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    failed += errs.length;
    if (errs.length) {
      error ??= errs[0].reason;
      break;
    }
  }
  return { skipped: count - done, failed, error };
}

/** Creates and deletes an owner's pods, recording upstream's events on the owner. */
export class PodControl {
  constructor(private readonly client: Client, private readonly recorder: EventRecorder) {}

  async create(pod: Obj, owner: Obj): Promise<Obj> {
    try {
      const made = await this.client.create(RESOURCES.pods, pod);
      this.recorder.event(owner, made, "Normal", "SuccessfulCreate", "Create", `Created pod: ${made.metadata.name}`);
      return made;
    } catch (e) {
      this.recorder.event(owner, undefined, "Warning", "FailedCreate", "Create", `Error creating: ${(e as Error).message}`);
      throw e;
    }
  }

  /** Deletes a pod; a pod already gone counts as deleted (and throws NotFound for the caller to tell). */
  async delete(pod: Obj, owner: Obj): Promise<void> {
    try {
      await this.client.delete(RESOURCES.pods, pod.metadata.name, { namespace: pod.metadata.namespace });
      this.recorder.event(owner, pod, "Normal", "SuccessfulDelete", "Delete", `Deleted pod: ${pod.metadata.name}`);
    } catch (e) {
      if (!isNotFound(e)) this.recorder.event(owner, pod, "Warning", "FailedDelete", "Delete", `Error deleting: ${(e as Error).message}`);
      throw e;
    }
  }
}

/** How long expectations hold before a controller acts anyway (upstream's ExpectationsTimeout). */
const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

/**
 * controller.ControllerExpectations: the creations and deletions a controller waits to see in its cache
 * before it syncs the owner again.
 */
export class Expectations {
  private readonly byKey = new Map<string, { add: number; del: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    return !e || (e.add <= 0 && e.del <= 0) || this.now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  expect(key: string, add: number, del: number): void { this.byKey.set(key, { add, del, at: this.now() }); }
  creationObserved(key: string): void { const e = this.byKey.get(key); if (e) e.add--; }
  deletionObserved(key: string): void { const e = this.byKey.get(key); if (e) e.del--; }
  forget(key: string): void { this.byKey.delete(key); }
}
