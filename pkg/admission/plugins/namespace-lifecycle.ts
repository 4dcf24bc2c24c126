// NamespaceLifecycle: nothing is created in a namespace that does not exist or is being deleted, and the
// immortal namespaces cannot be deleted.
import { StatusError, forbidden, notFound } from "../../api/status.ts";
import { cachedGet } from "../lookup.ts";
import { type Plugin, type PluginContext, isKind, qualified } from "../types.ts";

export const IMMORTAL_NAMESPACES = ["default", "kube-system", "kube-public"];
/** Reviews are answered, never stored: a terminating namespace still takes them. */
const REVIEWS = new Set(["localsubjectaccessreviews"]);

export function namespaceLifecycle(ctx: PluginContext): Plugin {
  const namespaces = ctx.registry.namespaces;
  return {
    handles: (a) => (a.operation === "CREATE" && !!a.namespace && a.def.namespaced) || (a.operation === "DELETE" && isKind(a, "", "Namespace")),
    async admit(a) {
      if (a.operation === "DELETE") {
        if (IMMORTAL_NAMESPACES.includes(a.name)) throw forbidden(qualified(a), a.name, "this namespace may not be deleted");
        return;
      }
      const ns = await cachedGet(namespaces, "", a.namespace);
      if (!ns) throw notFound({ group: "", resource: "namespaces" }, a.namespace);
      if ((ns.status?.phase === "Terminating" || ns.metadata.deletionTimestamp) && !REVIEWS.has(a.def.plural)) {
        const why = `unable to create new content in namespace ${a.namespace} because it is being terminated`;
        const e = forbidden(qualified(a), a.name, why);
        throw new StatusError(e.code, e.reason, e.message, { ...e.details, causes: [{ reason: "NamespaceTerminating", message: why, field: "metadata.namespace" }] });
      }
    },
  };
}
