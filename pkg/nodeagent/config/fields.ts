// KubeletConfiguration v1beta1 (v1.21) field by field: its shape for strict type checks, and the flag it
// stands for, so a --config file becomes flag values that options.ts reads as if given on the command line
// (a flag actually given overrides the file, as upstream).
import type { Shape } from "../../util/strictshape.ts";

export const API_VERSION = "kubelet.config.k8s.io/v1beta1";
export const KIND = "KubeletConfiguration";

type Obj = Record<string, any>;

/** How a field's value is spelled as its flag's value. */
type Spell = (v: any) => string;
const plain: Spell = (v) => String(v);
const list: Spell = (v: string[]) => v.join(",");
const pairs = (sep: string): Spell => (m: Obj) => Object.entries(m).map(([k, v]) => `${k}${sep}${v}`).join(",");
const headers: Spell = (m: Record<string, string[]>) => Object.entries(m).flatMap(([k, vs]) => vs.map((v) => `${k}:${v}`)).join(",");

interface Field { shape: Shape; flag?: string; spell?: Spell }
const f = (shape: Shape, flag?: string, spell: Spell = plain): Field => ({ shape, flag, spell });
const strMap: Shape = { "*": "string" };

/** Every top-level field of v1.21's KubeletConfiguration; `flag` where a command-line flag sets the same. */
export const FIELDS: Record<string, Field> = {
  apiVersion: f("string"), kind: f("string"),
  enableServer: f("bool"),
  staticPodPath: f("string", "pod-manifest-path"),
  syncFrequency: f("duration", "sync-frequency"),
  fileCheckFrequency: f("duration", "file-check-frequency"),
  httpCheckFrequency: f("duration", "http-check-frequency"),
  staticPodURL: f("string", "manifest-url"),
  staticPodURLHeader: f({ "*": ["string"] }, "manifest-url-header", headers),
  address: f("string", "address"),
  port: f("int", "port"),
  readOnlyPort: f("int", "read-only-port"),
  tlsCertFile: f("string", "tls-cert-file"),
  tlsPrivateKeyFile: f("string", "tls-private-key-file"),
  tlsCipherSuites: f(["string"], "tls-cipher-suites", list),
  tlsMinVersion: f("string", "tls-min-version"),
  rotateCertificates: f("bool", "rotate-certificates"),
  serverTLSBootstrap: f("bool", "rotate-server-certificates"),
  authentication: f({
    x509: { clientCAFile: "string" },
    webhook: { enabled: "bool", cacheTTL: "duration" },
    anonymous: { enabled: "bool" },
  }),
  authorization: f({ mode: "string", webhook: { cacheAuthorizedTTL: "duration", cacheUnauthorizedTTL: "duration" } }),
  registryPullQPS: f("int", "registry-qps"),
  registryBurst: f("int", "registry-burst"),
  eventRecordQPS: f("int", "event-qps"),
  eventBurst: f("int", "event-burst"),
  enableDebuggingHandlers: f("bool", "enable-debugging-handlers"),
  enableContentionProfiling: f("bool", "contention-profiling"),
  healthzPort: f("int", "healthz-port"),
  healthzBindAddress: f("string", "healthz-bind-address"),
  oomScoreAdj: f("int", "oom-score-adj"),
  clusterDomain: f("string", "cluster-domain"),
  clusterDNS: f(["string"], "cluster-dns", list),
  streamingConnectionIdleTimeout: f("duration", "streaming-connection-idle-timeout"),
  nodeStatusUpdateFrequency: f("duration", "node-status-update-frequency"),
  nodeStatusReportFrequency: f("duration"),
  nodeLeaseDurationSeconds: f("int"),
  imageMinimumGCAge: f("duration", "minimum-image-ttl-duration"),
  imageGCHighThresholdPercent: f("int", "image-gc-high-threshold"),
  imageGCLowThresholdPercent: f("int", "image-gc-low-threshold"),
  volumeStatsAggPeriod: f("duration", "volume-stats-agg-period"),
  kubeletCgroups: f("string", "kubelet-cgroups"),
  systemCgroups: f("string", "system-cgroups"),
  cgroupRoot: f("string", "cgroup-root"),
  cgroupsPerQOS: f("bool", "cgroups-per-qos"),
  cgroupDriver: f("string", "cgroup-driver"),
  cpuManagerPolicy: f("string", "cpu-manager-policy"),
  cpuManagerReconcilePeriod: f("duration", "cpu-manager-reconcile-period"),
  memoryManagerPolicy: f("string", "memory-manager-policy"),
  topologyManagerPolicy: f("string", "topology-manager-policy"),
  topologyManagerScope: f("string", "topology-manager-scope"),
  qosReserved: f(strMap, "qos-reserved", pairs("=")),
  runtimeRequestTimeout: f("duration", "runtime-request-timeout"),
  hairpinMode: f("string", "hairpin-mode"),
  maxPods: f("int", "max-pods"),
  podCIDR: f("string", "pod-cidr"),
  podPidsLimit: f("int", "pod-max-pids"),
  resolvConf: f("string", "resolv-conf"),
  runOnce: f("bool"),
  cpuCFSQuota: f("bool", "cpu-cfs-quota"),
  cpuCFSQuotaPeriod: f("duration", "cpu-cfs-quota-period"),
  nodeStatusMaxImages: f("int", "node-status-max-images"),
  maxOpenFiles: f("int", "max-open-files"),
  contentType: f("string", "kube-api-content-type"),
  kubeAPIQPS: f("int", "kube-api-qps"),
  kubeAPIBurst: f("int", "kube-api-burst"),
  serializeImagePulls: f("bool", "serialize-image-pulls"),
  evictionHard: f(strMap, "eviction-hard", pairs("<")),
  evictionSoft: f(strMap, "eviction-soft", pairs("<")),
  evictionSoftGracePeriod: f(strMap, "eviction-soft-grace-period", pairs("=")),
  evictionPressureTransitionPeriod: f("duration", "eviction-pressure-transition-period"),
  evictionMaxPodGracePeriod: f("int", "eviction-max-pod-grace-period"),
  evictionMinimumReclaim: f(strMap, "eviction-minimum-reclaim", pairs("=")),
  podsPerCore: f("int", "pods-per-core"),
  enableControllerAttachDetach: f("bool", "enable-controller-attach-detach"),
  protectKernelDefaults: f("bool", "protect-kernel-defaults"),
  makeIPTablesUtilChains: f("bool", "make-iptables-util-chains"),
  iptablesMasqueradeBit: f("int", "iptables-masquerade-bit"),
  iptablesDropBit: f("int", "iptables-drop-bit"),
  featureGates: f({ "*": "bool" }, "feature-gates", pairs("=")),
  failSwapOn: f("bool", "fail-swap-on"),
  containerLogMaxSize: f("string", "container-log-max-size"),
  containerLogMaxFiles: f("int", "container-log-max-files"),
  configMapAndSecretChangeDetectionStrategy: f("string"),
  systemReserved: f(strMap, "system-reserved", pairs("=")),
  kubeReserved: f(strMap, "kube-reserved", pairs("=")),
  reservedSystemCPUs: f("string", "reserved-cpus"),
  showHiddenMetricsForVersion: f("string", "show-hidden-metrics-for-version"),
  systemReservedCgroup: f("string", "system-reserved-cgroup"),
  kubeReservedCgroup: f("string", "kube-reserved-cgroup"),
  enforceNodeAllocatable: f(["string"], "enforce-node-allocatable", list),
  allowedUnsafeSysctls: f(["string"], "allowed-unsafe-sysctls", list),
  volumePluginDir: f("string", "volume-plugin-dir"),
  providerID: f("string", "provider-id"),
  kernelMemcgNotification: f("bool", "experimental-kernel-memcg-notification"),
  logging: f({ format: "string", sanitization: "bool" }),
  enableSystemLogHandler: f("bool"),
  shutdownGracePeriod: f("duration"),
  shutdownGracePeriodCriticalPods: f("duration"),
  reservedMemory: f([{ numaNode: "int", limits: strMap }]),
  enableProfilingHandler: f("bool"),
  enableDebugFlagsHandler: f("bool"),
};

/** The file's nested settings that stand for flags, by flag name (authentication, authorization). */
export const NESTED: [path: string[], flag: string, spell?: Spell][] = [
  [["authentication", "x509", "clientCAFile"], "client-ca-file"],
  [["authentication", "webhook", "enabled"], "authentication-token-webhook"],
  [["authentication", "webhook", "cacheTTL"], "authentication-token-webhook-cache-ttl"],
  [["authentication", "anonymous", "enabled"], "anonymous-auth"],
  [["authorization", "mode"], "authorization-mode"],
  [["authorization", "webhook", "cacheAuthorizedTTL"], "authorization-webhook-cache-authorized-ttl"],
  [["authorization", "webhook", "cacheUnauthorizedTTL"], "authorization-webhook-cache-unauthorized-ttl"],
];

/** v1beta1's defaults that differ from the flags' own: a config file turns the agent's server secure. */
export const FILE_DEFAULTS: Record<string, string> = {
  "anonymous-auth": "false",
  "authentication-token-webhook": "true",
  "authorization-mode": "Webhook",
  "read-only-port": "0",
};

/** The flag values a decoded config stands for (fields without a flag are read from the file directly). */
export function configFlags(config: Obj): Record<string, string> {
  const out: Record<string, string> = { ...FILE_DEFAULTS };
  for (const [name, field] of Object.entries(FIELDS)) {
    const v = config[name];
    if (v === undefined || v === null || !field.flag) continue;
    out[field.flag] = field.spell!(v);
  }
  for (const [path, flag] of NESTED) {
    const v = path.reduce<any>((o, k) => (o == null ? undefined : o[k]), config);
    if (v !== undefined && v !== null) out[flag] = String(v);
  }
  return out;
}
