// NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods tolerating its taint.
import { unresolvable, type FilterPlugin, type Plugin } from "../framework/index.ts";
import { NodeUnschedulable } from "./names.ts";
import { tolerationsTolerateTaint } from "./tolerations.ts";

export const ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable";
export const ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions";
const UNSCHEDULABLE_TAINT = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" };

export function newNodeUnschedulable(): Plugin {
  const plugin: FilterPlugin = {
    name: NodeUnschedulable,
    filter(_state, pod, nodeInfo) {
      const node = nodeInfo.node;
      if (!node) return unresolvable(ERR_REASON_UNKNOWN_CONDITION);
      if (node.spec?.unschedulable && !tolerationsTolerateTaint(pod.spec.tolerations, UNSCHEDULABLE_TAINT)) {
        return unresolvable(ERR_REASON_UNSCHEDULABLE);
      }
      return null;
    },
  };
  return plugin;
}
