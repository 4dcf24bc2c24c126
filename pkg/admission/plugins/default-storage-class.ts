// DefaultStorageClass: a new claim that names no class gets the default StorageClass.
import { internal } from "../../api/status.ts";
import { cachedList } from "../lookup.ts";
import { type Plugin, type PluginContext, isKind } from "../types.ts";

const DEFAULT = ["storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"];

export function defaultStorageClass(ctx: PluginContext): Plugin {
  const classes = ctx.registry.lookup("storage.k8s.io", "v1", "storageclasses")!;
  return {
    handles: (a) => isKind(a, "", "PersistentVolumeClaim") && a.operation === "CREATE" && !a.subresource,
    async admit(a) {
      const spec = (a.object!.spec ??= {});
      // "" asks for no class at all
      if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
      if (a.object!.metadata.annotations?.["volume.beta.kubernetes.io/storage-class"] !== undefined) return;
      const defaults = (await cachedList(classes)).filter((c) => DEFAULT.some((k) => c.metadata.annotations?.[k] === "true"));
      if (defaults.length > 1) throw internal(`${defaults.length} default StorageClasses were found`);
      if (defaults.length === 1) spec.storageClassName = defaults[0].metadata.name;
    },
  };
}
