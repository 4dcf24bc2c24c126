// DefaultTolerationSeconds: a new pod tolerates nodes that are not ready or unreachable (NoExecute) for
// --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds, unless it says otherwise.
import type { Obj } from "../../registry/types.ts";
import { type Plugin, type PluginContext, isKind } from "../types.ts";

const NOT_READY = "node.kubernetes.io/not-ready";
const UNREACHABLE = "node.kubernetes.io/unreachable";

/** Does the pod already tolerate key's NoExecute taint (an empty key or effect matches every one)? */
const tolerates = (tolerations: Obj[], key: string) =>
  tolerations.some((t) => (!t.key || t.key === key) && (!t.effect || t.effect === "NoExecute"));

export function defaultTolerationSeconds(ctx: PluginContext): Plugin {
  const defaults: [string, number][] = [[NOT_READY, ctx.options.notReadyTolerationSeconds], [UNREACHABLE, ctx.options.unreachableTolerationSeconds]];
  return {
    handles: (a) => isKind(a, "", "Pod") && a.operation === "CREATE" && !a.subresource,
    admit(a) {
      const spec = (a.object!.spec ??= {});
      const tolerations: Obj[] = spec.tolerations ?? [];
      const added = defaults.filter(([key]) => !tolerates(tolerations, key))
        .map(([key, seconds]) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds }));
      if (added.length) spec.tolerations = [...tolerations, ...added];
    },
  };
}
