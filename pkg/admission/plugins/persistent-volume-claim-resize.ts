// PersistentVolumeClaimResize: a claim grows only when its StorageClass allows volume expansion.
import { forbidden } from "../../api/status.ts";
import { parseQuantity } from "../../util/quantity.ts";
import { cachedGet } from "../lookup.ts";
import { type Plugin, type PluginContext, isKind, qualified } from "../types.ts";

export function persistentVolumeClaimResize(ctx: PluginContext): Plugin {
  const classes = ctx.registry.lookup("storage.k8s.io", "v1", "storageclasses")!;
  const size = (o: any) => parseQuantity(o?.spec?.resources?.requests?.storage) ?? 0;
  return {
    handles: (a) => isKind(a, "", "PersistentVolumeClaim") && a.operation === "UPDATE" && !a.subresource,
    async validate(a) {
      if (size(a.object) <= size(a.oldObject)) return;
      const name = a.oldObject!.spec?.storageClassName;
      const sc = name ? await cachedGet(classes, "", name) : undefined;
      if (sc?.allowVolumeExpansion !== true) {
        throw forbidden(qualified(a), a.name, "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize");
      }
    },
  };
}
