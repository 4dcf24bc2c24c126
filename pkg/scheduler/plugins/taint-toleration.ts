// TaintToleration: NoSchedule/NoExecute taints a pod does not tolerate rule the node out; untolerated
// PreferNoSchedule taints lower its score (fewest wins).
import {
  Code, MAX_NODE_SCORE, Status, unresolvable,
  type CycleState, type FilterPlugin, type NodeInfo, type Plugin, type PreScorePlugin, type ScorePlugin, type StateData, type Toleration,
} from "../framework/index.ts";
import { TaintToleration } from "./names.ts";
import { defaultNormalizeScore } from "./normalize.ts";
import { tolerationsTolerateTaint } from "./tolerations.ts";

const STATE_KEY = "PreScore" + TaintToleration;

class PreferredTolerations implements StateData {
  constructor(readonly tolerations: Toleration[]) {}
  clone() { return this; }
}

function preferredTolerations(state: CycleState): Toleration[] {
  const s = state.read<PreferredTolerations>(STATE_KEY);
  if (!s) throw new Error(`error reading "${STATE_KEY}" from cycleState`);
  return s.tolerations;
}

/** How many PreferNoSchedule taints of the node the tolerations leave untolerated. */
function intolerableTaints(tolerations: Toleration[], nodeInfo: NodeInfo): number {
  const taints = nodeInfo.node?.spec?.taints;
  if (!taints) return 0;
  let n = 0;
  for (const taint of taints) {
    if (taint.effect === "PreferNoSchedule" && !tolerationsTolerateTaint(tolerations, taint)) n++;
  }
  return n;
}

export function newTaintToleration(): Plugin {
  const plugin: FilterPlugin & PreScorePlugin & ScorePlugin = {
    name: TaintToleration,
    filter(_state, pod, nodeInfo) {
      const node = nodeInfo.node;
      if (!node) return new Status(Code.Error, "invalid nodeInfo");
      const taints = node.spec?.taints;
      if (!taints) return null;
      for (const taint of taints) {
        if (taint.effect !== "NoSchedule" && taint.effect !== "NoExecute") continue;
        if (!tolerationsTolerateTaint(pod.spec.tolerations, taint)) {
          return unresolvable(`node(s) had taint {${taint.key}: ${taint.value ?? ""}}, that the pod didn't tolerate`);
        }
      }
      return null;
    },
    preScore(state, pod) {
      const tolerations = (pod.spec.tolerations ?? []).filter((t) => !t.effect || t.effect === "PreferNoSchedule");
      state.write(STATE_KEY, new PreferredTolerations(tolerations));
      return null;
    },
    score(state: CycleState, _pod, nodeInfo) {
      return intolerableTaints(preferredTolerations(state), nodeInfo);
    },
    scoreNodes(state, _pod, nodes, scores) {
      const tolerations = preferredTolerations(state);
      for (let i = 0; i < nodes.length; i++) scores[i].score = intolerableTaints(tolerations, nodes[i]);
    },
    scoreExtensions() {
      return { normalizeScore: (_state, _pod, scores) => defaultNormalizeScore(MAX_NODE_SCORE, true, scores) };
    },
  };
  return plugin;
}
