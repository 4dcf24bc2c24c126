// Defaults of the storage.k8s.io/v1 kinds.
import type { Obj } from "../registry/types.ts";
import { child, fill, sub } from "./fill.ts";
import { defaultPersistentSources } from "./volumes.ts";

export const defaultStorageClass = (sc: Obj) => fill(sc, { reclaimPolicy: "Delete", volumeBindingMode: "Immediate" });

/** v1.21's beta gates (CSIStorageCapacity, CSIVolumeFSGroupPolicy, CSIInlineVolume, CSIServiceAccountToken) are on. */
export function defaultCSIDriver(d: Obj): void {
  const sp = child(d, "spec");
  fill(sp, { attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: "ReadWriteOnceWithFSType", requiresRepublish: false });
  if (!Array.isArray(sp.volumeLifecycleModes) || sp.volumeLifecycleModes.length === 0) sp.volumeLifecycleModes = ["Persistent"];
}

/** An attachment of an inline volume: that volume's sources get their defaults. */
export function defaultVolumeAttachment(va: Obj): void {
  const inline = sub(sub(sub(va, "spec"), "source"), "inlineVolumeSpec");
  if (inline) defaultPersistentSources(inline);
}
