// Profiles from a KubeSchedulerConfiguration (v1beta1): one framework per schedulerName, each running
// the algorithm provider's plugins merged with the profile's own (config/plugins.ts effectivePlugins),
// with its pluginConfig args (upstream's profile.NewMap).
import { effectivePlugins, type AlgorithmProvider } from "./config/plugins.ts";
import type { KubeSchedulerProfile } from "./config/types.ts";
import { EXTENSION_POINTS, Framework, type ClusterActions, type Listers, type Plugins, type Registry } from "./framework/index.ts";
import type { Nominator } from "./internal/nominator.ts";

export const DEFAULT_SCHEDULER_NAME = "default-scheduler";

/** What buildProfiles reads of the configuration: its profiles (absent: one default-scheduler profile). */
export interface ProfilesConfig {
  profiles?: Partial<KubeSchedulerProfile>[] | null;
}

/**
 * A profile's plugins: the provider's, merged with the profile's. Defaults the registry lacks are
 * left out; a plugin the profile enables by name must exist.
 */
export function profilePlugins(profile: Partial<KubeSchedulerProfile>, registry: Registry, provider: AlgorithmProvider = "DefaultProvider"): Plugins {
  const merged = effectivePlugins(provider, profile.plugins ?? undefined);
  const out: Plugins = {};
  for (const [point] of EXTENSION_POINTS) {
    const named = new Set((profile.plugins?.[point]?.enabled ?? []).map((p) => p.name));
    out[point] = merged[point].filter((p) => registry.has(p.name) || named.has(p.name));
  }
  return out;
}

export interface ProfileDeps {
  registry: Registry;
  nominator: Nominator;
  listers: Listers;
  actions: ClusterActions;
  /** --algorithm-provider (DefaultProvider unless given). */
  provider?: AlgorithmProvider;
}

/** One framework per schedulerName; throws with upstream's messages on a bad profile. */
export function buildProfiles(config: ProfilesConfig, deps: ProfileDeps): Map<string, Framework> {
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
        profileName: name, registry: deps.registry, plugins: profilePlugins(p, deps.registry, deps.provider), pluginArgs: args,
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
