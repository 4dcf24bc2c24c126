// InterPodAffinity: pods' required and preferred (anti-)affinity to other pods by topology domain,
// checked both ways (an existing pod's anti-affinity can keep the incoming pod off its domain).
import type { FilterPlugin, Handle, Plugin, PluginFactory, PreFilterPlugin, PreScorePlugin, ScorePlugin } from "../../framework/index.ts";
import { InterPodAffinity } from "../names.ts";
import { affinityFilter, affinityPreFilter, affinityPreFilterExtensions } from "./filtering.ts";
import { affinityNormalizeScore, affinityPreScore, affinityScore, hasPreferredTerms } from "./scoring.ts";

export interface InterPodAffinityArgs {
  /** The score an existing pod's required affinity gives a pod it selects (0..100, default 1). */
  hardPodAffinityWeight?: number | null;
}

export interface InterPodAffinityFeatures {
  /** The PodAffinityNamespaceSelector feature gate (alpha in v1.21, off by default). */
  podAffinityNamespaceSelector: boolean;
}

export const DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1;

/** The factory for a set of feature gates. */
export function interPodAffinityFactory(features: InterPodAffinityFeatures): PluginFactory {
  return (args: unknown, handle: Handle): Plugin => {
    const weight = (args as InterPodAffinityArgs | undefined)?.hardPodAffinityWeight ?? DEFAULT_HARD_POD_AFFINITY_WEIGHT;
    const nsSelector = features.podAffinityNamespaceSelector;
    const plugin: PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin = {
      name: InterPodAffinity,
      preFilter: (state, pod) => affinityPreFilter(handle, state, pod, nsSelector),
      preFilterExtensions: () => affinityPreFilterExtensions,
      filter: affinityFilter,
      preScore: (state, pod, nodes) => affinityPreScore(handle, state, pod, nodes, weight, nsSelector),
      score: affinityScore,
      // Every node scores 0 when neither the pod nor any pod in the cluster has terms to weigh.
      scoreSkips: (pod) => !hasPreferredTerms(pod) && handle.snapshotSharedLister().nodeInfos().havePodsWithAffinityList().length === 0,
      scoreExtensions: () => ({ normalizeScore: (state, _pod, scores) => affinityNormalizeScore(state, scores) }),
    };
    return plugin;
  };
}
