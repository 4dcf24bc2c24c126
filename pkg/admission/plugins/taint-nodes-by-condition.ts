// TaintNodesByCondition: a new Node is not ready until its agent says so, so it starts with the not-ready
// NoSchedule taint (the node lifecycle controller removes it).
import type { Obj } from "../../registry/types.ts";
import { type Plugin, isKind } from "../types.ts";

const NOT_READY = { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" };

export function taintNodesByCondition(): Plugin {
  return {
    handles: (a) => isKind(a, "", "Node") && a.operation === "CREATE" && !a.subresource,
    admit(a) {
      const spec = (a.object!.spec ??= {});
      const taints: Obj[] = spec.taints ?? [];
      if (!taints.some((t) => t.key === NOT_READY.key && t.effect === NOT_READY.effect)) spec.taints = [...taints, { ...NOT_READY }];
    },
  };
}
