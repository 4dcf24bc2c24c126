// Why a pod fits no node, in upstream's words: "0/3 nodes are available: 1 node(s) had taint {k: v},
// that the pod didn't tolerate, 2 Insufficient cpu." Reasons are counted over the filtered nodes and
// the "count reason" strings sorted as strings, as upstream's FitError.Error() does.
import type { NodeToStatusMap, Pod } from "./framework/index.ts";

export const ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods";

export class FitError extends Error {
  constructor(readonly pod: Pod, readonly numAllNodes: number, readonly filteredNodesStatuses: NodeToStatusMap) {
    super(fitErrorMessage(numAllNodes, filteredNodesStatuses));
    this.name = "FitError";
  }
}

export function fitErrorMessage(numAllNodes: number, statuses: NodeToStatusMap): string {
  const counts = new Map<string, number>();
  for (const s of statuses.values()) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts].map(([reason, n]) => `${n} ${reason}`).sort();
  return `0/${numAllNodes} nodes are available: ${parts.join(", ")}.`;
}

/** No nodes at all (upstream's ErrNoNodesAvailable). */
export class NoNodesAvailableError extends Error {
  constructor() {
    super(ERR_NO_NODES_AVAILABLE);
  }
}
