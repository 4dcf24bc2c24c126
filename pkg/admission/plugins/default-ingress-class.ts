// DefaultIngressClass: a new Ingress that names no class gets the default IngressClass.
import { forbidden } from "../../api/status.ts";
import { cachedList } from "../lookup.ts";
import { type Plugin, type PluginContext, qualified } from "../types.ts";

const DEFAULT = "ingressclass.kubernetes.io/is-default-class";

export function defaultIngressClass(ctx: PluginContext): Plugin {
  const classes = ctx.registry.lookup("networking.k8s.io", "v1", "ingressclasses")!;
  return {
    handles: (a) => a.def.kind === "Ingress" && a.operation === "CREATE" && !a.subresource,
    async admit(a) {
      const o = a.object!;
      if (o.spec?.ingressClassName || o.metadata.annotations?.["kubernetes.io/ingress.class"] !== undefined) return;
      const defaults = (await cachedList(classes)).filter((c) => c.metadata.annotations?.[DEFAULT] === "true");
      if (defaults.length > 1) throw forbidden(qualified(a), a.name, `${defaults.length} default IngressClasses were found, only 1 allowed`);
      if (defaults.length === 1) (o.spec ??= {}).ingressClassName = defaults[0].metadata.name;
    },
  };
}
