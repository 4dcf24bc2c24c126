// AlwaysPullImages: every container of a new or updated pod pulls its image, so a pod cannot use an image
// another tenant's credentials pulled onto the node.
import type { Obj } from "../../registry/types.ts";
import { type Plugin, isKind } from "../types.ts";

export const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"];

export function alwaysPullImages(): Plugin {
  return {
    handles: (a) => isKind(a, "", "Pod") && (a.operation === "CREATE" || a.operation === "UPDATE") && (!a.subresource || a.subresource === "ephemeralcontainers"),
    admit(a) {
      for (const list of CONTAINER_LISTS) for (const c of (a.object!.spec?.[list] ?? []) as Obj[]) c.imagePullPolicy = "Always";
    },
  };
}
