// The in-tree plugins as upstream v1.21's algorithm providers enable them, and the arguments of those that
// take any (kind `<plugin>Args`), with their v1beta1 defaults.
import { EXTENSION_POINTS, type ExtensionPoint, type Plugin, type Plugins } from "./types.ts";

export const PROVIDERS = ["DefaultProvider", "ClusterAutoscalerProvider"] as const;
export type AlgorithmProvider = (typeof PROVIDERS)[number];

const names = (...n: string[]): Plugin[] => n.map((name) => ({ name }));

/** DefaultProvider's plugins per extension point (DefaultPodTopologySpread on, as in v1.21), score weights included. */
const DEFAULT_PLUGINS: Record<ExtensionPoint, Plugin[]> = {
  queueSort: names("PrioritySort"),
  preFilter: names("NodeResourcesFit", "NodePorts", "PodTopologySpread", "InterPodAffinity", "VolumeBinding"),
  filter: names("NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions",
    "EBSLimits", "GCEPDLimits", "NodeVolumeLimits", "AzureDiskLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity"),
  postFilter: names("DefaultPreemption"),
  preScore: names("InterPodAffinity", "PodTopologySpread", "TaintToleration"),
  score: [
    { name: "NodeResourcesBalancedAllocation", weight: 1 }, { name: "ImageLocality", weight: 1 }, { name: "InterPodAffinity", weight: 1 },
    { name: "NodeResourcesLeastAllocated", weight: 1 }, { name: "NodeAffinity", weight: 1 }, { name: "NodePreferAvoidPods", weight: 10000 },
    { name: "PodTopologySpread", weight: 2 }, { name: "TaintToleration", weight: 1 },
  ],
  reserve: names("VolumeBinding"),
  permit: [],
  preBind: names("VolumeBinding"),
  bind: names("DefaultBinder"),
  postBind: [],
};

/** The plugins an algorithm provider enables; ClusterAutoscalerProvider packs nodes (MostAllocated) instead of spreading. */
function providerPlugins(provider: AlgorithmProvider): Record<ExtensionPoint, Plugin[]> {
  if (provider === "DefaultProvider") return DEFAULT_PLUGINS;
  return { ...DEFAULT_PLUGINS, score: DEFAULT_PLUGINS.score.map((p) => (p.name === "NodeResourcesLeastAllocated" ? { ...p, name: "NodeResourcesMostAllocated" } : p)) };
}

/**
 * A profile's enabled plugins per extension point, as upstream v1.21 merges them: the provider's, less
 * those the profile disables (`*` disables them all), then the ones the profile enables, in its order.
 */
export function effectivePlugins(provider: AlgorithmProvider, custom: Plugins | undefined): Record<ExtensionPoint, Plugin[]> {
  const base = providerPlugins(provider);
  const out = {} as Record<ExtensionPoint, Plugin[]>;
  for (const ep of EXTENSION_POINTS) {
    const set = custom?.[ep];
    const disabled = new Set((set?.disabled ?? []).map((p) => p.name));
    const kept = disabled.has("*") ? [] : base[ep].filter((p) => !disabled.has(p.name));
    out[ep] = [...kept, ...(set?.enabled ?? [])];
  }
  return out;
}

const RESOURCES = () => [{ name: "cpu", weight: 1 }, { name: "memory", weight: 1 }];
type Args = Record<string, unknown>;

/** Every in-tree Args kind (by plugin name): its fields' defaults, applied where a field is unset. */
export const PLUGIN_ARGS: Record<string, (a: Args) => void> = {
  DefaultPreemption: (a) => {
    a.minCandidateNodesPercentage ??= 10;
    a.minCandidateNodesAbsolute ??= 100;
  },
  InterPodAffinity: (a) => { a.hardPodAffinityWeight ??= 1; },
  NodeAffinity: () => {},
  NodeLabel: () => {},
  NodeResourcesFit: () => {},
  NodeResourcesLeastAllocated: (a) => { if (!(a.resources as unknown[] | undefined)?.length) a.resources = RESOURCES(); },
  NodeResourcesMostAllocated: (a) => { if (!(a.resources as unknown[] | undefined)?.length) a.resources = RESOURCES(); },
  RequestedToCapacityRatio: (a) => { if (!(a.resources as unknown[] | undefined)?.length) a.resources = RESOURCES(); },
  // DefaultPodTopologySpread is on in v1.21: System unless the args bring their own constraints
  PodTopologySpread: (a) => { a.defaultingType ||= (a.defaultConstraints as unknown[] | undefined)?.length ? "List" : "System"; },
  ServiceAffinity: () => {},
  VolumeBinding: (a) => { a.bindTimeoutSeconds ??= 600; },
};
