// PodTopologySpread: spreads pods matching a selector evenly over topology domains, as a hard
// filter (DoNotSchedule) and as a score (ScheduleAnyway); pods without constraints of their own
// get the configured defaults over the selector of the Services and controllers that own them.
import type { FilterPlugin, Handle, Plugin, Pod, PreFilterPlugin, PreScorePlugin, ScorePlugin } from "../../framework/index.ts";
import { PodTopologySpread } from "../names.ts";
import { defaultConstraintsOf, type PodTopologySpreadArgs } from "./common.ts";
import { preFilterState, spreadFilter, spreadPreFilterExtensions, writePreFilterState } from "./filtering.ts";
import { spreadNormalizeScore, spreadPreScore, spreadScore } from "./scoring.ts";

export function newPodTopologySpread(args: unknown, handle: Handle): Plugin {
  const defaults = defaultConstraintsOf(args as PodTopologySpreadArgs | undefined);
  // The pod of the last PreFilter (PreScore) when it had no DoNotSchedule (ScheduleAnyway)
  // constraints: Filter passes it anywhere (Score gives every node the same).
  let unconstrained: Pod | null = null;
  let unscored: Pod | null = null;
  const plugin: PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin = {
    name: PodTopologySpread,
    preFilter(state, pod) {
      const s = preFilterState(handle, pod, defaults);
      unconstrained = s.constraints.length === 0 ? pod : null;
      writePreFilterState(state, s);
      return null;
    },
    preFilterExtensions: () => spreadPreFilterExtensions,
    filter: spreadFilter,
    filterSkips: (pod) => pod === unconstrained,
    preScore(state, pod, nodes) {
      unscored = spreadPreScore(handle, state, pod, nodes, defaults) ? null : pod;
      return null;
    },
    score: spreadScore,
    scoreSkips: (pod) => pod === unscored,
    scoreExtensions: () => ({ normalizeScore: (state, _pod, scores) => spreadNormalizeScore(state, scores) }),
  };
  return plugin;
}
