// Upstream v1.21's validation of a (defaulted) KubeSchedulerConfiguration, in its field-error words.
import { parseDuration } from "../../util/duration.ts";
import { splitHostPort } from "../../util/hostport.ts";
import type { KubeSchedulerConfiguration, KubeSchedulerProfile, LeaderElectionConfiguration } from "./types.ts";

export const RESOURCE_LOCKS = ["leases", "endpoints", "configmaps", "endpointsleases", "configmapsleases"];

/** Go's field.Invalid value: numbers and booleans bare, strings quoted, durations as written. */
const shown = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : typeof v === "object" ? JSON.stringify(v) ?? "null" : String(v));
const invalid = (path: string, value: unknown, detail: string) => `${path}: Invalid value: ${shown(value)}: ${detail}`;
const required = (path: string, detail = "") => `${path}: Required value${detail ? `: ${detail}` : ""}`;
const duplicate = (path: string, value: unknown) => `${path}: Duplicate value: ${shown(value)}`;
const unsupported = (path: string, value: unknown, allowed: string[]) => `${path}: Unsupported value: ${shown(value)}: supported values: ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
/** A Duration value is shown as Go's String() prints it. */
const asDuration = (path: string, v: string, detail: string) => `${path}: Invalid value: ${v}: ${detail}`;

/** Errors joined as Go's aggregate prints them: one as it is, several in brackets. */
export function aggregate(errs: string[]): string {
  return errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`;
}

/** hardPodAffinityWeight of InterPodAffinity args and --hard-pod-affinity-symmetric-weight. */
export function validateHardPodAffinityWeight(path: string, w: number): string[] {
  return w < 0 || w > 100 ? [invalid(path, w, "not in valid range [0-100]")] : [];
}

function validateLeaderElection(le: LeaderElectionConfiguration): string[] {
  if (!le.leaderElect) return [];
  const p = "leaderElection";
  const errs: string[] = [];
  const lease = parseDuration(le.leaseDuration), renew = parseDuration(le.renewDeadline), retry = parseDuration(le.retryPeriod);
  if (lease <= 0) errs.push(asDuration(`${p}.leaseDuration`, le.leaseDuration, "must be greater than zero"));
  if (renew <= 0) errs.push(asDuration(`${p}.renewDeadline`, le.renewDeadline, "must be greater than zero"));
  if (retry <= 0) errs.push(asDuration(`${p}.retryPeriod`, le.retryPeriod, "must be greater than zero"));
  if (lease <= renew) errs.push(asDuration(`${p}.leaseDuration`, le.renewDeadline, "LeaseDuration must be greater than RenewDeadline"));
  if (!RESOURCE_LOCKS.includes(le.resourceLock)) errs.push(unsupported(`${p}.resourceLock`, le.resourceLock, RESOURCE_LOCKS));
  if (!le.resourceNamespace) errs.push(invalid(`${p}.resourceNamespace`, le.resourceNamespace, "resourceNamespace is required"));
  if (!le.resourceName) errs.push(invalid(`${p}.resourceName`, le.resourceName, "resourceName is required"));
  return errs;
}

type Args = Record<string, any>;

function validateResources(path: string, resources: Args[] | undefined): string[] {
  return (resources ?? []).flatMap((r, i) => (r.weight <= 0 || r.weight > 100 ? [invalid(`${path}.resources[${i}].weight`, r.weight, "resource weight of " + r.name + " not in valid range [1, 100]")] : []));
}

/** Each in-tree plugin's arguments, by plugin name. */
const ARGS_RULES: Record<string, (path: string, a: Args) => string[]> = {
  DefaultPreemption: (path, a) => {
    const errs: string[] = [];
    if (a.minCandidateNodesPercentage < 0 || a.minCandidateNodesPercentage > 100) errs.push(invalid(`${path}.minCandidateNodesPercentage`, a.minCandidateNodesPercentage, "not in valid range [0, 100]"));
    if (a.minCandidateNodesAbsolute < 0) errs.push(invalid(`${path}.minCandidateNodesAbsolute`, a.minCandidateNodesAbsolute, "not in valid range [0, inf)"));
    if (a.minCandidateNodesPercentage === 0 && a.minCandidateNodesAbsolute === 0) {
      errs.push(invalid(`${path}.minCandidateNodesPercentage`, 0, "cannot be zero at the same time as minCandidateNodesAbsolute"));
    }
    return errs;
  },
  InterPodAffinity: (path, a) => validateHardPodAffinityWeight(`${path}.hardPodAffinityWeight`, a.hardPodAffinityWeight),
  NodeResourcesLeastAllocated: (path, a) => validateResources(path, a.resources),
  NodeResourcesMostAllocated: (path, a) => validateResources(path, a.resources),
  PodTopologySpread: (path, a) => {
    if (!["System", "List"].includes(a.defaultingType)) return [unsupported(`${path}.defaultingType`, a.defaultingType, ["List", "System"])];
    if (a.defaultingType === "System" && a.defaultConstraints?.length) return [invalid(`${path}.defaultConstraints`, a.defaultConstraints, 'when .defaultingType is "System"')];
    return [];
  },
  VolumeBinding: (path, a) => (a.bindTimeoutSeconds < 0 ? [invalid(`${path}.bindTimeoutSeconds`, a.bindTimeoutSeconds, "invalid BindTimeoutSeconds, should not be a negative value")] : []),
};

function validateProfile(path: string, p: KubeSchedulerProfile): string[] {
  const errs: string[] = [];
  if (!p.schedulerName) errs.push(required(`${path}.schedulerName`));
  const seen = new Set<string>();
  (p.pluginConfig ?? []).forEach((pc, i) => {
    const at = `${path}.pluginConfig[${i}]`;
    if (seen.has(pc.name)) errs.push(duplicate(at, pc.name));
    seen.add(pc.name);
    const rule = ARGS_RULES[pc.name];
    if (rule && pc.args) errs.push(...rule(`${at}.args`, pc.args));
  });
  return errs;
}

/** host:port with a port in 1..65535 (Go's IsValidSocketAddr); "" is an insecure port turned off. */
function validateSocketAddress(path: string, v: string): string[] {
  if (v === "") return [];
  const hp = splitHostPort(v);
  const port = Number(hp?.port);
  if (!hp) return [invalid(path, v, "must be a valid socket address format, (e.g. 0.0.0.0:10254 or [::]:10254)")];
  if (!/^\d+$/.test(hp.port) || port < 1 || port > 65535) return [invalid(path, v, "must be a valid port number")];
  return [];
}

/** Every error of the configuration, in upstream's order. */
export function validateConfig(c: KubeSchedulerConfiguration): string[] {
  const errs: string[] = [];
  if (c.clientConnection.burst < 0) errs.push(invalid("clientConnection.burst", c.clientConnection.burst, "must be non-negative"));
  errs.push(...validateLeaderElection(c.leaderElection));
  if (c.parallelism <= 0) errs.push(invalid("parallelism", c.parallelism, "should be an integer value greater than zero"));
  if (c.profiles.length === 0) errs.push(required("profiles"));
  const names = new Map<string, number>();
  c.profiles.forEach((p, i) => {
    errs.push(...validateProfile(`profiles[${i}]`, p));
    if (names.has(p.schedulerName)) errs.push(duplicate(`profiles[${i}].schedulerName`, p.schedulerName));
    names.set(p.schedulerName, i);
  });
  // the queue is shared: every profile must sort it the same way
  const queueSort = (p: KubeSchedulerProfile) => JSON.stringify(p.plugins?.queueSort ?? null);
  c.profiles.slice(1).forEach((p, i) => {
    if (queueSort(p) !== queueSort(c.profiles[0])) errs.push(invalid(`profiles[${i + 1}].plugins.queueSort`, p.plugins?.queueSort ?? null, "has to match for all profiles"));
  });
  errs.push(...validateSocketAddress("healthzBindAddress", c.healthzBindAddress));
  errs.push(...validateSocketAddress("metricsBindAddress", c.metricsBindAddress));
  if (c.percentageOfNodesToScore < 0 || c.percentageOfNodesToScore > 100) errs.push(invalid("percentageOfNodesToScore", c.percentageOfNodesToScore, "not in valid range [0-100]"));
  if (c.podInitialBackoffSeconds <= 0) errs.push(invalid("podInitialBackoffSeconds", c.podInitialBackoffSeconds, "must be greater than 0"));
  if (c.podMaxBackoffSeconds < c.podInitialBackoffSeconds) errs.push(invalid("podMaxBackoffSeconds", c.podMaxBackoffSeconds, "must be greater than or equal to PodInitialBackoffSeconds"));
  c.extenders.forEach((e, i) => {
    if ((e.weight ?? 0) <= 0 && e.prioritizeVerb) errs.push(invalid(`extenders[${i}].weight`, e.weight ?? 0, "must have a positive weight applied to it"));
  });
  if (c.extenders.filter((e) => e.bindVerb).length > 1) errs.push(invalid("extenders", c.extenders.filter((e) => e.bindVerb).length, "only one extender can implement bind"));
  return errs;
}
