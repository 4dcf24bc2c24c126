// PodTopologySpread: spreads pods matching a selector evenly over topology domains, as a hard
// filter (DoNotSchedule) and as a score (ScheduleAnyway); pods without constraints of their own
// get the configured defaults over the selector of the Services and controllers that own them.
import type { FilterPlugin, Handle, Plugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from "../../framework/index.ts";
import { PodTopologySpread } from "../names.ts";
import { defaultConstraintsOf, type PodTopologySpreadArgs } from "./common.ts";
import { preFilterState, spreadFilter, spreadPreFilterExtensions, writePreFilterState } from "./filtering.ts";
import { spreadNormalizeScore, spreadPreScore, spreadScore } from "./scoring.ts";

export function newPodTopologySpread(args: unknown, handle: Handle): Plugin {
  const defaults = defaultConstraintsOf(args as PodTopologySpreadArgs | undefined);
  const plugin: PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin = {
    name: PodTopologySpread,
    preFilter(state, pod) {
      writePreFilterState(state, preFilterState(handle, pod, defaults));
      return null;
    },
    preFilterExtensions: () => spreadPreFilterExtensions,
    filter: spreadFilter,
    preScore: (state, pod, nodes) => spreadPreScore(handle, state, pod, nodes, defaults),
    score: spreadScore,
    scoreExtensions: () => ({ normalizeScore: (state, _pod, scores) => spreadNormalizeScore(state, scores) }),
  };
  return plugin;
}
