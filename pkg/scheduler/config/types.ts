// KubeSchedulerConfiguration, kubescheduler.config.k8s.io/v1beta1, in its wire form (the field names of
// the file; durations as Go writes them, `15s`). After defaulting every field below is set.

const GROUP = "kubescheduler.config.k8s.io";
export const API_VERSION = `${GROUP}/v1beta1`;
export const KIND = "KubeSchedulerConfiguration";

export interface LeaderElectionConfiguration {
  leaderElect: boolean;
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
  /** leases, endpoints, configmaps, endpointsleases or configmapsleases */
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}

export interface ClientConnectionConfiguration {
  kubeconfig: string;
  acceptContentTypes: string;
  contentType: string;
  qps: number;
  burst: number;
}

export interface Plugin {
  name: string;
  weight?: number;
}

export interface PluginSet {
  enabled?: Plugin[];
  disabled?: Plugin[];
}

export const EXTENSION_POINTS = ["queueSort", "preFilter", "filter", "postFilter", "preScore", "score", "reserve", "permit", "preBind", "bind", "postBind"] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export type Plugins = Partial<Record<ExtensionPoint, PluginSet>>;

export interface PluginConfig {
  name: string;
  /** The plugin's arguments; for the in-tree plugins an object of kind `<name>Args`, defaulted. */
  args?: Record<string, unknown>;
}

export interface KubeSchedulerProfile {
  schedulerName: string;
  /** Changes to the algorithm provider's plugins (absent: the provider's plugins as they are). */
  plugins?: Plugins;
  pluginConfig?: PluginConfig[];
}

export interface Extender {
  urlPrefix: string;
  filterVerb?: string;
  preemptVerb?: string;
  prioritizeVerb?: string;
  weight?: number;
  bindVerb?: string;
  enableHTTPS?: boolean;
  tlsConfig?: Record<string, unknown>;
  httpTimeout?: string;
  nodeCacheCapable?: boolean;
  managedResources?: { name: string; ignoredByScheduler?: boolean }[];
  ignorable?: boolean;
}

export interface KubeSchedulerConfiguration {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  parallelism: number;
  leaderElection: LeaderElectionConfiguration;
  clientConnection: ClientConnectionConfiguration;
  /** host:port of the insecure health endpoints; "" when the insecure port is off (--port 0). */
  healthzBindAddress: string;
  /** host:port of the insecure /metrics; "" when off. */
  metricsBindAddress: string;
  enableProfiling: boolean;
  enableContentionProfiling: boolean;
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  profiles: KubeSchedulerProfile[];
  extenders: Extender[];
}
