// VolumeZone: a pod's bound PersistentVolumes labelled with zones or regions need a node in one of
// them. Unbound claims waiting for their first consumer are skipped.
import { Code, Status, unresolvable, type FilterPlugin, type Handle, type Plugin } from "../framework/index.ts";
import { VolumeZone } from "./names.ts";

export const ERR_REASON_ZONE_CONFLICT = "node(s) had no available volume zone";
const ZONE_LABELS = new Set([
  "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
  "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
]);
const ANN_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class";

/** A label value may list several zones separated by "__" (upstream's LabelZonesToSet). */
const zonesOf = (v: string) => new Set(v.split("__").map((z) => z.trim()).filter((z) => z !== ""));

export function newVolumeZone(_args: unknown, handle: Handle): Plugin {
  const listers = handle.listers;
  const plugin: FilterPlugin = {
    name: VolumeZone,
    filterSkips: (pod) => !(pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim),
    filter(_state, pod, nodeInfo) {
      const volumes = pod.spec.volumes;
      if (!volumes || volumes.length === 0) return null;
      const node = nodeInfo.node;
      if (!node) return new Status(Code.Error, "node not found");
      const constraints = new Map<string, string>();
      for (const [k, v] of Object.entries(node.metadata.labels ?? {})) if (ZONE_LABELS.has(k)) constraints.set(k, v);
      if (constraints.size === 0) return null;
      const ns = pod.metadata.namespace ?? "";
      for (const v of volumes) {
        const claimName = v.persistentVolumeClaim?.claimName;
        if (claimName === undefined) continue;
        if (claimName === "") return unresolvable("PersistentVolumeClaim had no name");
        const pvc = listers.persistentVolumeClaim(ns, claimName);
        if (!pvc) return unresolvable(`persistentvolumeclaim "${claimName}" not found`);
        const pvName: string = pvc.spec?.volumeName ?? "";
        if (!pvName) {
          const className: string = pvc.spec?.storageClassName ?? pvc.metadata.annotations?.[ANN_STORAGE_CLASS] ?? "";
          if (!className) return unresolvable("PersistentVolumeClaim had no pv name and storageClass name");
          const sc = listers.storageClass(className);
          if (!sc) return unresolvable(`storageclass.storage.k8s.io "${className}" not found`);
          if (!sc.volumeBindingMode) return unresolvable(`VolumeBindingMode not set for StorageClass "${className}"`);
          if (sc.volumeBindingMode === "WaitForFirstConsumer") continue;
          return unresolvable("PersistentVolume had no name");
        }
        const pv = listers.persistentVolume(pvName);
        if (!pv) return unresolvable(`persistentvolume "${pvName}" not found`);
        for (const [k, val] of Object.entries((pv.metadata.labels ?? {}) as Record<string, string>)) {
          if (!ZONE_LABELS.has(k)) continue;
          if (!zonesOf(val).has(constraints.get(k) ?? "")) return unresolvable(ERR_REASON_ZONE_CONFLICT);
        }
      }
      return null;
    },
  };
  return plugin;
}
