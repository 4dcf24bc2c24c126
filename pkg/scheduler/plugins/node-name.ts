// NodeName: a pod naming a node in spec.nodeName fits only that node.
import { Code, Status, unresolvable, type FilterPlugin, type Plugin } from "../framework/index.ts";
import { NodeName } from "./names.ts";

export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name";

export function newNodeName(): Plugin {
  const plugin: FilterPlugin = {
    name: NodeName,
    filterSkips: (pod) => !pod.spec.nodeName,
    filter(_state, pod, nodeInfo) {
      if (!nodeInfo.node) return new Status(Code.Error, "node not found");
      const want = pod.spec.nodeName;
      return !want || want === nodeInfo.name ? null : unresolvable(ERR_REASON_NODE_NAME);
    },
  };
  return plugin;
}
