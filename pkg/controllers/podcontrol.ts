// Creating and deleting a controller's pods (upstream's PodControl): a pod from the controller's template
// with its controller reference, events on the controller in upstream's words, and slow-start batches
// (1, 2, 4, ... at once) so a failing create costs one request, not hundreds.
import { ApiError, isNotFound, type Client, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import { RESOURCES } from "../client/resources.ts";
import type { OwnerReference } from "./controllerref.ts";

/** Upstream's burstReplicas: the most pods one sync creates or deletes. */
export const BURST_REPLICAS = 500;

/** The pod a template makes for its controller (GetPodFromTemplate). */
export function podFromTemplate(template: Obj, owner: Obj, ref: OwnerReference): Obj {
  const t = template.metadata ?? {};
  const labels = { ...(t.labels ?? {}) };
  if (!Object.keys(labels).length) throw new Error("unable to create pods, no labels");
  const metadata: Obj = { generateName: `${owner.metadata.name}-`, namespace: owner.metadata.namespace, labels, ownerReferences: [ref] };
  if (t.annotations) metadata.annotations = { ...t.annotations };
  if (t.finalizers) metadata.finalizers = [...t.finalizers];
  return { apiVersion: "v1", kind: "Pod", metadata, spec: structuredClone(template.spec ?? {}) };
}

/** A create refused because the namespace is being deleted: nothing to retry (upstream ignores it). */
const namespaceTerminating = (e: unknown) =>
  e instanceof ApiError && e.code === 403 && (e.status.details?.causes ?? []).some((c) => c.reason === "NamespaceTerminating");

export class PodControl {
  constructor(private readonly client: Client, private readonly recorder: EventRecorder) {}

  /** Creates a pod for `owner`; a namespace being deleted is not an error. */
  async create(template: Obj, owner: Obj, ref: OwnerReference): Promise<void> {
    const pod = podFromTemplate(template, owner, ref);
    try {
      const made = await this.client.create(RESOURCES.pods, pod, { namespace: owner.metadata.namespace });
      this.recorder.event(owner, made, "Normal", "SuccessfulCreate", "Create", `Created pod: ${made.metadata.name}`);
    } catch (e) {
      if (namespaceTerminating(e)) return;
      this.recorder.event(owner, undefined, "Warning", "FailedCreate", "Create", `Error creating: ${(e as Error).message}`);
      throw e;
    }
  }

  async delete(pod: Obj, owner: Obj): Promise<void> {
    try {
      await this.client.delete(RESOURCES.pods, pod.metadata.name, { namespace: pod.metadata.namespace });
      this.recorder.event(owner, pod, "Normal", "SuccessfulDelete", "Delete", `Deleted pod: ${pod.metadata.name}`);
    } catch (e) {
      // a pod already gone is no failure to report (the caller tells NotFound apart)
      if (!isNotFound(e)) this.recorder.event(owner, pod, "Warning", "FailedDelete", "Delete", `Error deleting: ${(e as Error).message}`);
      throw e;
    }
  }
}

/**
 * Runs `fn` `count` times in batches of 1, 2, 4, ... (each batch at once), stopping after the first
 * batch with a failure. Returns how many calls succeeded and the first error.
 */
export async function slowStartBatch(count: number, initial: number, fn: () => Promise<void>): Promise<{ ok: number; error?: Error }> {
  let remaining = count, ok = 0;
  for (let size = Math.min(remaining, initial); size > 0; size = Math.min(2 * size, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: size }, fn));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    ok += results.length - results.filter((r) => r.status === "rejected").length;
    if (failed) return { ok, error: failed.reason as Error };
    remaining -= size;
  }
  return { ok };
}
