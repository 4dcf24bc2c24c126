// Creating, updating and deleting a StatefulSet's pods and creating their claims (upstream's
// StatefulPodControl), each reported as an event on the set in upstream's words.
import { isAlreadyExists, isNotFound, type Client, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import { RESOURCES } from "../client/resources.ts";
import { claimsFor, ordinalOf, setIdentity, setStorage, storageMatches } from "./statefulset-pods.ts";

const title = (verb: string) => verb[0].toUpperCase() + verb.slice(1);

export class StatefulPodControl {
  constructor(private readonly client: Client, private readonly recorder: EventRecorder) {}

  /** Says that a failed pod is deleted to be made again. */
  recreatingFailed(set: Obj, pod: Obj): void {
    this.recorder.event(set, pod, "Warning", "RecreatingFailedPod", "Recreate",
      `StatefulSet ${set.metadata.namespace}/${set.metadata.name} is recreating failed Pod ${pod.metadata.name}`);
  }

  /** Creates the pod's missing claims, then the pod. */
  async create(set: Obj, pod: Obj): Promise<void> {
    await this.createClaims(set, pod);
    try {
      await this.client.create(RESOURCES.pods, pod, { namespace: set.metadata.namespace });
    } catch (e) {
      // made by an earlier sync the pod informer has not shown yet
      if (isAlreadyExists(e)) return;
      this.podEvent("create", set, pod, e as Error);
      throw e;
    }
    this.podEvent("create", set, pod);
  }

  /** Gives a pod back its identity and storage. */
  async update(set: Obj, pod: Obj): Promise<void> {
    const fixed = structuredClone(pod);
    setIdentity(set, fixed);
    if (!storageMatches(set, fixed)) {
      await this.createClaims(set, fixed);
      setStorage(set, fixed);
    }
    try {
      await this.client.update(RESOURCES.pods, fixed, { namespace: set.metadata.namespace });
    } catch (e) {
      this.podEvent("update", set, pod, e as Error);
      throw e;
    }
    this.podEvent("update", set, pod);
  }

  async delete(set: Obj, pod: Obj): Promise<void> {
    try {
      await this.client.delete(RESOURCES.pods, pod.metadata.name, { namespace: set.metadata.namespace });
    } catch (e) {
      if (isNotFound(e)) return;
      this.podEvent("delete", set, pod, e as Error);
      throw e;
    }
    this.podEvent("delete", set, pod);
  }

  /** Creates the claims the pod mounts that do not exist; a claim being deleted is an error. */
  private async createClaims(set: Obj, pod: Obj): Promise<void> {
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const ns = set.metadata.namespace;
      try {
        const existing = await this.client.get(RESOURCES.persistentvolumeclaims, claim.metadata.name, { namespace: ns });
        if (existing.metadata.deletionTimestamp) throw new Error(`pvc ${claim.metadata.name} is being deleted`);
        continue;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      try {
        await this.client.create(RESOURCES.persistentvolumeclaims, claim, { namespace: ns });
      } catch (e) {
        if (isAlreadyExists(e)) continue;
        this.claimEvent(set, pod, claim, e as Error);
        throw e;
      }
      this.claimEvent(set, pod, claim);
    }
  }

  private podEvent(verb: string, set: Obj, pod: Obj, error?: Error): void {
    const what = `${verb} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name}`;
    if (error) this.recorder.event(set, pod, "Warning", `Failed${title(verb)}`, title(verb), `${what} failed error: ${error.message}`);
    else this.recorder.event(set, pod, "Normal", `Successful${title(verb)}`, title(verb), `${what} successful`);
  }

  private claimEvent(set: Obj, pod: Obj, claim: Obj, error?: Error): void {
    const { name: s } = set.metadata, { name: p } = pod.metadata, { name: c } = claim.metadata;
    if (error) this.recorder.event(set, claim, "Warning", "FailedCreate", "Create", `create Claim ${c} for Pod ${p} in StatefulSet ${s} failed error: ${error.message}`);
    else this.recorder.event(set, claim, "Normal", "SuccessfulCreate", "Create", `create Claim ${c} Pod ${p} in StatefulSet ${s} success`);
  }
}
