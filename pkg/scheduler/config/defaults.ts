// Upstream v1.21's v1beta1 defaulting of KubeSchedulerConfiguration, plus the arguments of every plugin a
// profile runs that takes any (pluginConfig), so the effective configuration names every value in use.
import { formatDuration, parseDuration } from "../../util/duration.ts";
import { joinHostPort, splitHostPort } from "../../util/hostport.ts";
import { type AlgorithmProvider, PLUGIN_ARGS, effectivePlugins } from "./plugins.ts";
import { API_VERSION, EXTENSION_POINTS, KIND, type KubeSchedulerConfiguration, type KubeSchedulerProfile, type PluginConfig } from "./types.ts";

const DEFAULT_SCHEDULER_NAME = "default-scheduler";
/** The deprecated insecure port (--port). */
export const DEFAULT_INSECURE_PORT = 10251;

type Raw = Record<string, any>;

const isIP = (s: string) => /^(\d{1,3}\.){3}\d{1,3}$/.test(s) || (s.includes(":") && /^[0-9a-fA-F:.]+$/.test(s));

/**
 * A health or metrics bind address as v1beta1 defaults it: unset is 0.0.0.0:10251, `:port` gets host
 * 0.0.0.0, a bare IP gets port 10251, anything else unreadable the default. "" stays "": the insecure
 * port is off (what --port 0 writes).
 */
function bindAddress(v: unknown): string {
  const fallback = joinHostPort("0.0.0.0", DEFAULT_INSECURE_PORT);
  if (v === "") return "";
  if (typeof v !== "string") return fallback;
  const hp = splitHostPort(v);
  if (hp) return joinHostPort(hp.host || "0.0.0.0", hp.port);
  return isIP(v) ? joinHostPort(v, DEFAULT_INSECURE_PORT) : fallback;
}

/** A duration as Go writes it (`15s`); an unset one takes `fallback`. */
const duration = (v: unknown, fallback: string) => (typeof v === "string" && v ? formatDuration(parseDuration(v)) : fallback);

/** Defaulted plugin arguments: the in-tree kinds get their defaults, apiVersion and kind; others are kept. */
function defaultArgs(name: string, args: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const fill = PLUGIN_ARGS[name];
  if (!fill) return args;
  const out: Record<string, unknown> = { ...(args ?? {}), apiVersion: API_VERSION, kind: `${name}Args` };
  fill(out);
  return out;
}

function defaultProfile(p: Raw, provider: AlgorithmProvider): KubeSchedulerProfile {
  const given: PluginConfig[] = (p.pluginConfig ?? []).map((pc: Raw) => ({ name: pc.name, args: defaultArgs(pc.name, pc.args ?? undefined) }));
  const configured = new Set(given.map((pc) => pc.name));
  // Plugins the profile runs that take arguments and have none configured: their defaults, by name.
  const running = effectivePlugins(provider, p.plugins ?? undefined);
  const missing = [...new Set(EXTENSION_POINTS.flatMap((ep) => running[ep].map((pl) => pl.name)))]
    .filter((n) => PLUGIN_ARGS[n] && !configured.has(n))
    .sort();
  const profile: KubeSchedulerProfile = { schedulerName: p.schedulerName ?? "" };
  if (p.plugins) profile.plugins = p.plugins;
  profile.pluginConfig = [...given, ...missing.map((name) => ({ name, args: defaultArgs(name, undefined) }))];
  return profile;
}

/** The defaulted configuration of a decoded file (or of {} for the flags' defaults). */
export function defaultConfig(raw: Raw, provider: AlgorithmProvider = "DefaultProvider"): KubeSchedulerConfiguration {
  const le: Raw = raw.leaderElection ?? {}, cc: Raw = raw.clientConnection ?? {};
  let profiles: Raw[] = raw.profiles?.length ? raw.profiles : [{}];
  // a scheduler name is defaulted only when there is a single profile; validation wants one for each
  if (profiles.length === 1 && profiles[0].schedulerName == null) profiles = [{ ...profiles[0], schedulerName: DEFAULT_SCHEDULER_NAME }];
  const enableProfiling = raw.enableProfiling ?? true;
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    parallelism: raw.parallelism ?? 16,
    leaderElection: {
      leaderElect: le.leaderElect ?? true,
      leaseDuration: duration(le.leaseDuration, "15s"),
      renewDeadline: duration(le.renewDeadline, "10s"),
      retryPeriod: duration(le.retryPeriod, "2s"),
      resourceLock: le.resourceLock || "leases",
      resourceName: le.resourceName || "kube-scheduler",
      resourceNamespace: le.resourceNamespace || "kube-system",
    },
    clientConnection: {
      kubeconfig: cc.kubeconfig ?? "",
      acceptContentTypes: cc.acceptContentTypes ?? "",
      contentType: cc.contentType || "application/vnd.kubernetes.protobuf",
      qps: cc.qps || 50,
      burst: cc.burst || 100,
    },
    healthzBindAddress: bindAddress(raw.healthzBindAddress),
    metricsBindAddress: bindAddress(raw.metricsBindAddress),
    enableProfiling,
    enableContentionProfiling: raw.enableContentionProfiling ?? enableProfiling,
    percentageOfNodesToScore: raw.percentageOfNodesToScore ?? 0,
    podInitialBackoffSeconds: raw.podInitialBackoffSeconds ?? 1,
    podMaxBackoffSeconds: raw.podMaxBackoffSeconds ?? 10,
    profiles: profiles.map((p) => defaultProfile(p, provider)),
    extenders: raw.extenders ?? [],
  };
}
