// What the pvc-protection and pv-protection controllers share: an object of theirs that is being deleted
// loses its protection finalizer once nothing uses it (the StorageObjectInUseProtection admission plugin
// adds the finalizer on create; these controllers add it to objects made before, as upstream's do).
import { isNotFound, type Client, type Obj } from "../client/client.ts";
import type { ResourceRef } from "../client/resources.ts";

/** Adds `finalizer` to a live object without it, or removes it from a deleted one nothing uses. */
export async function reconcileFinalizer(client: Client, resource: ResourceRef, obj: Obj, finalizer: string, inUse: () => boolean): Promise<void> {
  const finalizers: string[] = obj.metadata.finalizers ?? [];
  const has = finalizers.includes(finalizer);
  let next: string[];
  if (!obj.metadata.deletionTimestamp) {
    if (has) return;
    next = [...finalizers, finalizer];
  } else {
    if (!has || inUse()) return;
    next = finalizers.filter((f) => f !== finalizer);
  }
  // the resourceVersion guards the list: a concurrent change conflicts, and the retry sees it
  const patch = { metadata: { resourceVersion: obj.metadata.resourceVersion, finalizers: next } };
  try {
    await client.patch(resource, obj.metadata.name, patch, "merge", { namespace: obj.metadata.namespace });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}
