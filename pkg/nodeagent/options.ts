// `kite node-agent`'s flags → NodeAgentOptions, refusing bad values with one line (UsageError, exit 2).
import { HAIRPIN_MODES, type HairpinMode } from "./network/podnetworks.ts";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { bool, duration, givenFlags, int, oneOf, repeated, UsageError } from "../cli/args.ts";
import { PROXY_MODES, type ProxyMode } from "./proxy/proxier.ts";
import { readKubeletConfig, KubeletConfigError } from "./config/file.ts";
import { configFlags, FIELDS, NESTED } from "./config/fields.ts";
import { reserved, softThresholds, thresholds, withMinimumReclaim, type Threshold } from "./config/thresholds.ts";
import { parseIPv4Range } from "../util/ipv4.ts";
import { parseQuantity } from "../util/quantity.ts";
import type { LogRotation } from "./runtime/output.ts";
import { type AgentServingOptions, servingOptions } from "./server/options.ts";
import { commaList } from "../util/commalist.ts";

export interface Taint { key: string; value?: string; effect: string }

/** The agent's requests in flight at once (the rest wait): a burst of pods' writes reuses a few kept-alive connections. */
export const API_MAX_IN_FLIGHT = 16;

export interface NodeAgentOptions {
  kubeconfig?: string;
  /** --bootstrap-kubeconfig: how to get a client certificate into --kubeconfig when it has none valid. */
  bootstrapKubeconfig?: string;
  nodeName: string;
  registerNode: boolean;
  nodeLabels: Record<string, string>;
  registerWithTaints: Taint[];
  nodeIP?: string;
  maxPods: number;
  nodeStatusUpdateFrequencyMs: number;
  rootDir: string;
  podManifestPath?: string;
  fileCheckFrequencyMs: number;
  manifestURL?: string;
  manifestURLHeader: Record<string, string[]>;
  httpCheckFrequencyMs: number;
  syncFrequencyMs: number;
  housekeepingIntervalMs: number;
  /** pids.max of each pod's cgroup; -1: no limit. */
  podMaxPids: number;
  /** --rotate-certificates: renew the client certificate before it expires. */
  rotateCertificates: boolean;
  /** --rotate-server-certificates (with the RotateKubeletServerCertificate gate): the serving certificate from the cluster. */
  rotateServerCertificates: boolean;
  providerID?: string;
  podsPerCore: number;
  kubeReserved: Record<string, number>;
  systemReserved: Record<string, number>;
  evictionHard: Threshold[];
  evictionSoft: Threshold[];
  evictionPressureTransitionPeriodMs: number;
  evictionMaxPodGracePeriodSeconds: number;
  kubeAPIQPS: number;
  /** --event-qps, --event-burst: events written per second at most (0: unlimited), and the burst. */
  eventQPS: number;
  eventBurst: number;
  kubeAPIBurst: number;
  /** From --config only (no flags upstream). */
  nodeLeaseDurationSeconds: number;
  nodeStatusReportFrequencyMs: number;
  /** Set by `kite up` only: a stopping agent stops its pods instead of leaving them for the next one. */
  stopPodsOnExit?: boolean;
  /** Set by `kite up` only: told once pods' networks are up, with the bridge's address (undefined: the host's network). */
  onPodNetwork?: (gateway: string | undefined) => void;
  /** Deprecated flags given and fields of the config file ignored, one line each, for the log. */
  warnings: string[];
  podCIDR?: string;
  podNetwork: "bridge" | "host";
  /** --hairpin-mode: how a pod's packet to its own Service comes back through the bridge. */
  hairpinMode: HairpinMode;
  /** --proxy-mode: the service proxy (proxy/proxier.ts). */
  proxyMode: ProxyMode;
  /** --cluster-dns (invalid IPs dropped with a warning, as upstream), --cluster-domain, --resolv-conf ("" for none). */
  clusterDNS: string[];
  clusterDomain: string;
  resolvConf: string;
  /** --port, --read-only-port, --healthz-port and who may call them. */
  serving: AgentServingOptions;
  /** --container-log-max-size, --container-log-max-files */
  logRotation: LogRotation;
}

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The kubernetes.io labels a kubelet may set on itself (upstream's kubeletapis allowed set and prefixes). */
const ALLOWED_LABELS = new Set([
  "beta.kubernetes.io/arch", "beta.kubernetes.io/instance-type", "beta.kubernetes.io/os",
  "failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
  "kubernetes.io/arch", "kubernetes.io/hostname", "kubernetes.io/os", "node.kubernetes.io/instance-type",
  "topology.kubernetes.io/region", "topology.kubernetes.io/zone",
]);
const ALLOWED_PREFIXES = ["kubelet.kubernetes.io", "node.kubernetes.io"];

function isRestrictedLabel(key: string): boolean {
  const prefix = key.includes("/") ? key.slice(0, key.indexOf("/")) : "";
  const inNamespace = (ns: string) => prefix === ns || prefix.endsWith(`.${ns}`);
  if (!inNamespace("kubernetes.io") && !inNamespace("k8s.io")) return false;
  return !ALLOWED_LABELS.has(key) && !ALLOWED_PREFIXES.some((p) => prefix === p || prefix.endsWith(`.${p}`));
}

export function parseLabels(flag: string, v: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!v) return out;
  for (const pair of v.split(",")) {
    const eq = pair.indexOf("=");
    const key = eq < 0 ? pair : pair.slice(0, eq), value = eq < 0 ? "" : pair.slice(eq + 1);
    if (eq < 0 || !QUALIFIED_NAME.test(key) || !LABEL_VALUE.test(value)) throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: invalid label "${pair}": want key=value with a qualified name and a valid label value`);
    out[key] = value;
  }
  const unknown = Object.keys(out).filter(isRestrictedLabel);
  if (unknown.length) throw new UsageError(`unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${unknown.join(" ")}]`);
  return out;
}

/** `key=value:Effect` or `key:Effect`, comma separated (upstream's ParseTaints). */
export function parseTaints(flag: string, v: string | undefined): Taint[] {
  if (!v) return [];
  return v.split(",").map((spec) => {
    const colon = spec.lastIndexOf(":");
    const bad = (why: string) => new UsageError(`invalid argument "${v}" for "--${flag}" flag: invalid taint spec: ${spec}, ${why}`);
    if (colon < 0) throw bad("missing the effect");
    const effect = spec.slice(colon + 1), kv = spec.slice(0, colon);
    if (!TAINT_EFFECTS.includes(effect)) throw bad(`invalid taint effect: ${effect}, unsupported taint effect`);
    const eq = kv.indexOf("=");
    const key = eq < 0 ? kv : kv.slice(0, eq), value = eq < 0 ? undefined : kv.slice(eq + 1);
    if (!QUALIFIED_NAME.test(key) || (value !== undefined && !LABEL_VALUE.test(value))) throw bad("invalid key or value");
    return value === undefined ? { key, effect } : { key, value, effect };
  });
}

function positiveDuration(flag: string, v: string): number {
  const ms = duration(flag, v);
  if (ms <= 0) throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: must be greater than 0`);
  return ms;
}

const CONFIG_FLAGS = new Set<string>([...Object.values(FIELDS).flatMap((f) => (f.flag ? [f.flag] : [])), ...NESTED.map(([, flag]) => flag)]);
const deprecated = (flag: string) => `Flag --${flag} has been deprecated, This parameter should be set via the config file specified by the Kubelet's --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.`;

/**
 * The flags' values with a --config file under them: the file's settings replace the defaults, and a flag
 * given on the command line replaces the file's setting (upstream's precedence).
 */
export function withConfigFile(a: Record<string, any>, rawArgs: string[]): { args: Record<string, any>; config: Record<string, any>; warnings: string[] } {
  const given = givenFlags(rawArgs);
  const warnings = [...given].filter((f) => CONFIG_FLAGS.has(f)).map(deprecated);
  if (!a.config) return { args: a, config: {}, warnings };
  let file;
  try {
    file = readKubeletConfig(resolve(a.config));
  } catch (e) {
    if (e instanceof KubeletConfigError) throw new UsageError(e.message);
    throw e;
  }
  const fromFile = Object.fromEntries(Object.entries(configFlags(file.config)).filter(([flag]) => !given.has(flag)));
  return { args: { ...a, ...fromFile }, config: file.config, warnings: [...warnings, ...file.warnings] };
}

function headerFlag(flag: string, v: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pair of (v ?? "").split(",").filter(Boolean)) {
    const colon = pair.indexOf(":");
    if (colon <= 0) throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: malformed header, expect "key:value"`);
    (out[pair.slice(0, colon)] ??= []).push(pair.slice(colon + 1));
  }
  return out;
}

function leaseDuration(v: number | undefined): number {
  if (v === undefined) return 40;
  if (v <= 0) throw new UsageError(`invalid configuration: nodeLeaseDurationSeconds must be greater than 0`);
  return v;
}

/** Upstream's validation of the options that have no effect here: the values must still be valid. */
function checkInert(a: Record<string, any>) {
  const high = int("image-gc-high-threshold", String(a["image-gc-high-threshold"]), 0, 100);
  const low = int("image-gc-low-threshold", String(a["image-gc-low-threshold"]), 0, 100);
  if (low > high) throw new UsageError(`invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`);
  int("oom-score-adj", String(a["oom-score-adj"]), -1000, 1000);
  int("iptables-masquerade-bit", String(a["iptables-masquerade-bit"]), 0, 31);
  int("iptables-drop-bit", String(a["iptables-drop-bit"]), 0, 31);
  int("max-open-files", String(a["max-open-files"]));
  int("node-status-max-images", String(a["node-status-max-images"]), -1);
  for (const f of ["registry-qps", "registry-burst", "event-qps", "event-burst"]) int(f, String(a[f]), 0);
  for (const f of ["minimum-image-ttl-duration", "image-pull-progress-deadline", "runtime-request-timeout", "streaming-connection-idle-timeout", "cpu-cfs-quota-period", "cpu-manager-reconcile-period", "volume-stats-agg-period"]) duration(f, String(a[f]));
  oneOf("cpu-manager-policy", a["cpu-manager-policy"], ["none", "static"]);
  oneOf("topology-manager-policy", a["topology-manager-policy"], ["none", "best-effort", "restricted", "single-numa-node"]);
  oneOf("topology-manager-scope", a["topology-manager-scope"], ["container", "pod"]);
  oneOf("container-runtime", a["container-runtime"], ["docker", "remote"]);
  for (const f of ["cpu-cfs-quota", "fail-swap-on", "serialize-image-pulls"]) bool(f, a[f]);
  for (const level of String(a["enforce-node-allocatable"]).split(",").filter(Boolean)) oneOf("enforce-node-allocatable", level, ["none", "pods", "system-reserved", "kube-reserved"]);
}

export function nodeAgentOptions(raw: Record<string, any>, rawArgs: string[] = []): NodeAgentOptions {
  const { args: a, config, warnings } = withConfigFile(raw, rawArgs);
  // repeatable upstream; citty keeps only the last
  if (rawArgs.some((x) => x.startsWith("--manifest-url-header"))) a["manifest-url-header"] = repeated(rawArgs, "manifest-url-header").join(",");
  checkInert(a);
  const nodeName = (a["hostname-override"] || hostname()).trim().toLowerCase();
  if (!DNS_SUBDOMAIN.test(nodeName) || nodeName.length > 253) throw new UsageError(`invalid node name "${nodeName}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`);
  const nodeIP = a["node-ip"] || undefined;
  if (nodeIP !== undefined && !isIP(nodeIP)) throw new UsageError(`invalid argument "${nodeIP}" for "--node-ip" flag: not a valid IP address`);
  const podCIDR = a["pod-cidr"] || undefined;
  if (podCIDR !== undefined) {
    try { parseIPv4Range(podCIDR); } catch (e) { throw new UsageError(`invalid argument "${podCIDR}" for "--pod-cidr" flag: ${(e as Error).message}`); }
  }
  if (!a["root-dir"]) throw new UsageError(`invalid argument "" for "--root-dir" flag: may not be empty`);
  if (a["bootstrap-kubeconfig"] && !a.kubeconfig) throw new UsageError("--bootstrap-kubeconfig requires --kubeconfig: the file the agent writes with its client certificate");
  return {
    kubeconfig: a.kubeconfig || undefined,
    bootstrapKubeconfig: a["bootstrap-kubeconfig"] ? resolve(a["bootstrap-kubeconfig"]) : undefined,
    nodeName,
    registerNode: bool("register-node", a["register-node"]),
    nodeLabels: parseLabels("node-labels", a["node-labels"]),
    registerWithTaints: parseTaints("register-with-taints", a["register-with-taints"]),
    nodeIP,
    maxPods: int("max-pods", String(a["max-pods"]), 0),
    nodeStatusUpdateFrequencyMs: positiveDuration("node-status-update-frequency", a["node-status-update-frequency"]),
    rootDir: resolve(a["root-dir"]),
    podManifestPath: a["pod-manifest-path"] ? resolve(a["pod-manifest-path"]) : undefined,
    fileCheckFrequencyMs: positiveDuration("file-check-frequency", a["file-check-frequency"]),
    manifestURL: a["manifest-url"] || undefined,
    manifestURLHeader: headerFlag("manifest-url-header", a["manifest-url-header"]),
    httpCheckFrequencyMs: positiveDuration("http-check-frequency", a["http-check-frequency"]),
    syncFrequencyMs: positiveDuration("sync-frequency", a["sync-frequency"]),
    housekeepingIntervalMs: positiveDuration("housekeeping-interval", a["housekeeping-interval"]),
    podMaxPids: int("pod-max-pids", String(a["pod-max-pids"]), -1),
    rotateCertificates: bool("rotate-certificates", a["rotate-certificates"]),
    rotateServerCertificates: bool("rotate-server-certificates", a["rotate-server-certificates"]),
    providerID: a["provider-id"] || undefined,
    podsPerCore: int("pods-per-core", String(a["pods-per-core"]), 0),
    kubeReserved: reserved("kube-reserved", a["kube-reserved"]),
    systemReserved: reserved("system-reserved", a["system-reserved"]),
    evictionHard: withMinimumReclaim(thresholds("eviction-hard", a["eviction-hard"]), "eviction-minimum-reclaim", a["eviction-minimum-reclaim"]),
    evictionSoft: withMinimumReclaim(softThresholds(thresholds("eviction-soft", a["eviction-soft"]), "eviction-soft-grace-period", a["eviction-soft-grace-period"]), "eviction-minimum-reclaim", a["eviction-minimum-reclaim"]),
    evictionPressureTransitionPeriodMs: duration("eviction-pressure-transition-period", a["eviction-pressure-transition-period"]),
    evictionMaxPodGracePeriodSeconds: int("eviction-max-pod-grace-period", String(a["eviction-max-pod-grace-period"])),
    kubeAPIQPS: int("kube-api-qps", String(a["kube-api-qps"]), 0),
    kubeAPIBurst: int("kube-api-burst", String(a["kube-api-burst"]), 0),
    eventQPS: int("event-qps", String(a["event-qps"]), 0),
    eventBurst: int("event-burst", String(a["event-burst"]), 0),
    nodeLeaseDurationSeconds: leaseDuration(config.nodeLeaseDurationSeconds),
    nodeStatusReportFrequencyMs: config.nodeStatusReportFrequency ? duration("nodeStatusReportFrequency", config.nodeStatusReportFrequency) : 5 * 60_000,
    warnings,
    podCIDR,
    clusterDNS: clusterDNS(a["cluster-dns"], warnings),
    clusterDomain: a["cluster-domain"] ?? "",
    resolvConf: a["resolv-conf"] ?? "/etc/resolv.conf",
    podNetwork: oneOf("pod-network", a["pod-network"], ["bridge", "host"]) as "bridge" | "host",
    hairpinMode: oneOf("hairpin-mode", a["hairpin-mode"] ?? "promiscuous-bridge", [...HAIRPIN_MODES]) as HairpinMode,
    proxyMode: oneOf("proxy-mode", a["proxy-mode"] ?? "auto", [...PROXY_MODES]) as ProxyMode,
    serving: servingOptions(a, resolve(a["root-dir"])),
    logRotation: logRotation(a),
  };
}

/** The kubelet keeps the valid IPs of --cluster-dns and warns of the others. */
function clusterDNS(v: string | undefined, warnings: string[]): string[] {
  const ips = commaList(v);
  for (const ip of ips) if (!isIP(ip)) warnings.push(`Invalid clusterDNS ip '"${ip}"'`);
  return ips.filter((ip) => isIP(ip));
}

/** upstream's checks: a positive size, at least 2 files. */
function logRotation(a: Record<string, any>): LogRotation {
  const size = String(a["container-log-max-size"]);
  const maxBytes = parseQuantity(size);
  if (maxBytes === null || maxBytes <= 0) throw new UsageError(`invalid configuration: ContainerLogMaxSize (--container-log-max-size) ${size} must be a positive quantity`);
  const files = String(a["container-log-max-files"]);
  if (!/^-?\d+$/.test(files) || Number(files) < 2) throw new UsageError(`invalid configuration: ContainerLogMaxFiles (--container-log-max-files) ${files} must be > 1`);
  return { maxBytes: Math.floor(maxBytes), maxFiles: Number(files) };
}
