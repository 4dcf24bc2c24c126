// StorageObjectInUseProtection: claims and volumes get the finalizer that keeps them while in use.
import type { Plugin } from "../types.ts";

const FINALIZERS: Record<string, string> = { PersistentVolumeClaim: "kubernetes.io/pvc-protection", PersistentVolume: "kubernetes.io/pv-protection" };

export function storageObjectInUseProtection(): Plugin {
  return {
    handles: (a) => a.def.group === "" && a.def.kind in FINALIZERS && a.operation === "CREATE" && !a.subresource,
    admit(a) {
      const m = a.object!.metadata;
      const f = FINALIZERS[a.def.kind];
      if (!(m.finalizers ?? []).includes(f)) m.finalizers = [...(m.finalizers ?? []), f];
    },
  };
}
