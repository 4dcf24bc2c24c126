// RuntimeClass: a pod naming a RuntimeClass gets its overhead and its scheduling constraints (node
// selector merged, tolerations added), or is refused when the class does not exist or conflicts.
import { forbidden } from "../../api/status.ts";
import type { Obj } from "../../registry/types.ts";
import { cachedGet } from "../lookup.ts";
import { type Plugin, type PluginContext, isKind, qualified } from "../types.ts";

const sameToleration = (a: Obj, b: Obj) => ["key", "operator", "value", "effect", "tolerationSeconds"].every((k) => (a[k] ?? "") === (b[k] ?? ""));

export function runtimeClass(ctx: PluginContext): Plugin {
  const classes = ctx.registry.lookup("node.k8s.io", "v1", "runtimeclasses")!;
  return {
    handles: (a) => isKind(a, "", "Pod") && a.operation === "CREATE" && !a.subresource,
    async admit(a) {
      const spec = a.object!.spec ?? {};
      if (!spec.runtimeClassName) return;
      const refuse = (why: string) => forbidden(qualified(a), a.name, why);
      const rc = await cachedGet(classes, "", spec.runtimeClassName);
      if (!rc) throw refuse(`pod rejected: RuntimeClass "${spec.runtimeClassName}" not found`);
      const overhead = rc.overhead?.podFixed;
      if (overhead) {
        if (spec.overhead && !Bun.deepEquals(spec.overhead, overhead)) throw refuse("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
        spec.overhead = structuredClone(overhead);
      }
      const scheduling = rc.scheduling;
      if (!scheduling) return;
      const selector: Record<string, string> = { ...(spec.nodeSelector ?? {}) };
      for (const [k, v] of Object.entries((scheduling.nodeSelector ?? {}) as Record<string, string>)) {
        if (k in selector && selector[k] !== v) throw refuse(`conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${selector[k]}`);
        selector[k] = v;
      }
      if (Object.keys(selector).length) spec.nodeSelector = selector;
      const tolerations: Obj[] = spec.tolerations ?? [];
      for (const t of (scheduling.tolerations ?? []) as Obj[]) if (!tolerations.some((x) => sameToleration(x, t))) tolerations.push(structuredClone(t));
      if (tolerations.length) spec.tolerations = tolerations;
    },
  };
}
