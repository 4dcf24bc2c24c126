// Profiles from a KubeSchedulerConfiguration (v1beta1): one framework per schedulerName, each the
// default plugins merged with the profile's own (upstream's default_plugins.go and profile.NewMap).
import * as names from "./plugins/names.ts";
import {
  EXTENSION_POINTS, Framework,
  type ClusterActions, type ExtensionPoint, type Listers, type PluginRef, type PluginSet, type Plugins, type Registry,
} from "./framework/index.ts";
import type { Nominator } from "./internal/nominator.ts";

export const DEFAULT_SCHEDULER_NAME = "default-scheduler";

/** Upstream v1.21's default plugins for v1beta1 (DefaultPodTopologySpread on, VolumeCapacityPriority off). */
export const DEFAULT_PLUGINS: Record<ExtensionPoint, PluginRef[]> = {
  queueSort: [{ name: names.PrioritySort }],
  preFilter: [
    { name: names.NodeResourcesFit }, { name: names.NodePorts }, { name: names.PodTopologySpread },
    { name: names.InterPodAffinity }, { name: names.VolumeBinding },
  ],
  filter: [
    { name: names.NodeUnschedulable }, { name: names.NodeName }, { name: names.TaintToleration }, { name: names.NodeAffinity },
    { name: names.NodePorts }, { name: names.NodeResourcesFit }, { name: names.VolumeRestrictions }, { name: names.EBSLimits },
    { name: names.GCEPDLimits }, { name: names.NodeVolumeLimits }, { name: names.AzureDiskLimits }, { name: names.VolumeBinding },
    { name: names.VolumeZone }, { name: names.PodTopologySpread }, { name: names.InterPodAffinity },
  ],
  postFilter: [{ name: names.DefaultPreemption }],
  preScore: [{ name: names.InterPodAffinity }, { name: names.PodTopologySpread }, { name: names.TaintToleration }],
  score: [
    { name: names.NodeResourcesBalancedAllocation, weight: 1 }, { name: names.ImageLocality, weight: 1 },
    { name: names.InterPodAffinity, weight: 1 }, { name: names.NodeResourcesLeastAllocated, weight: 1 },
    { name: names.NodeAffinity, weight: 1 }, { name: names.NodePreferAvoidPods, weight: 10000 },
    { name: names.PodTopologySpread, weight: 2 }, { name: names.TaintToleration, weight: 1 },
  ],
  reserve: [{ name: names.VolumeBinding }],
  permit: [],
  preBind: [{ name: names.VolumeBinding }],
  bind: [{ name: names.DefaultBinder }],
  postBind: [],
};

export interface ProfileConfig {
  schedulerName?: string;
  plugins?: Partial<Record<ExtensionPoint, PluginSet | null>> | null;
  pluginConfig?: { name: string; args?: unknown }[] | null;
}

export interface KubeSchedulerConfiguration {
  profiles?: ProfileConfig[] | null;
  percentageOfNodesToScore?: number | null;
  podInitialBackoffSeconds?: number | null;
  podMaxBackoffSeconds?: number | null;
  [k: string]: unknown;
}

/** The defaults less the disabled ones ("*" disables them all), then the enabled ones appended. */
export function mergePluginSet(defaults: PluginRef[], custom: PluginSet | null | undefined): PluginRef[] {
  const disabled = new Set((custom?.disabled ?? []).map((d) => d.name));
  const out = disabled.has("*") ? [] : defaults.filter((p) => !disabled.has(p.name));
  return [...out, ...(custom?.enabled ?? [])];
}

/**
 * A profile's plugins. Defaults the registry lacks are left out (PodTopologySpread,
 * InterPodAffinity and DefaultPreemption until their module is registered); plugins the profile
 * enables by name must exist.
 */
export function profilePlugins(profile: ProfileConfig, registry: Registry): Plugins {
  const out: Plugins = {};
  for (const [point] of EXTENSION_POINTS) {
    const defaults = DEFAULT_PLUGINS[point].filter((p) => registry.has(p.name));
    out[point] = mergePluginSet(defaults, profile.plugins?.[point]);
  }
  return out;
}

export interface ProfileDeps {
  registry: Registry;
  nominator: Nominator;
  listers: Listers;
  actions: ClusterActions;
}

/** One framework per schedulerName; throws with upstream's messages on a bad profile. */
export function buildProfiles(config: KubeSchedulerConfiguration, deps: ProfileDeps): Map<string, Framework> {
  const profiles = config.profiles?.length ? config.profiles : [{ schedulerName: DEFAULT_SCHEDULER_NAME }];
  const out = new Map<string, Framework>();
  let queueSort: string | undefined;
  for (const p of profiles) {
    const name = p.schedulerName || DEFAULT_SCHEDULER_NAME;
    if (out.has(name)) throw new Error(`duplicate profile with scheduler name "${name}"`);
    const args = new Map<string, unknown>();
    for (const c of p.pluginConfig ?? []) {
      if (args.has(c.name)) throw new Error(`creating profile for scheduler name ${name}: repeated config for plugin ${c.name}`);
      args.set(c.name, c.args);
    }
    let fwk: Framework;
    try {
      fwk = new Framework({
        profileName: name, registry: deps.registry, plugins: profilePlugins(p, deps.registry), pluginArgs: args,
        nominator: deps.nominator, listers: deps.listers, actions: deps.actions,
      });
    } catch (e) {
      throw new Error(`creating profile for scheduler name ${name}: ${(e as Error).message}`);
    }
    const qs = fwk.pluginNames("queueSort")[0];
    if (queueSort !== undefined && qs !== queueSort) throw new Error(`different queue sort plugins for profile "${name}"`);
    queueSort = qs;
    out.set(name, fwk);
  }
  return out;
}
