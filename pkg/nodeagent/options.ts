// `kite node-agent`'s flags → NodeAgentOptions, refusing bad values with one line (UsageError, exit 2).
import { isIP } from "node:net";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { bool, duration, int, UsageError } from "../cli/args.ts";

export interface Taint { key: string; value?: string; effect: string }

export interface NodeAgentOptions {
  kubeconfig?: string;
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
  /** pids.max of each pod's cgroup; -1: no limit. */
  podMaxPids: number;
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

export function nodeAgentOptions(a: Record<string, any>): NodeAgentOptions {
  const nodeName = (a["hostname-override"] || hostname()).trim().toLowerCase();
  if (!DNS_SUBDOMAIN.test(nodeName) || nodeName.length > 253) throw new UsageError(`invalid node name "${nodeName}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`);
  const nodeIP = a["node-ip"] || undefined;
  if (nodeIP !== undefined && !isIP(nodeIP)) throw new UsageError(`invalid argument "${nodeIP}" for "--node-ip" flag: not a valid IP address`);
  if (!a["root-dir"]) throw new UsageError(`invalid argument "" for "--root-dir" flag: may not be empty`);
  return {
    kubeconfig: a.kubeconfig || undefined,
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
    podMaxPids: int("pod-max-pids", String(a["pod-max-pids"]), -1),
  };
}
