// The downward API, as upstream's fieldpath and resource helpers: a pod's fields (metadata.name,
// labels['k'], ...) and a container's resources (limits.cpu with a divisor, ...) as strings. Env vars and
// downwardAPI volume files share them.
import { parseQuantity } from "../../util/quantity.ts";
import type { Obj } from "../node.ts";

/** Go's %q of a string (strconv.Quote for the ASCII range; other characters pass as they are). */
function goQuote(s: string): string {
  const named: Record<string, string> = { "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", '"': '\\"', "\\": "\\\\" };
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (named[ch]) out += named[ch];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** upstream's FormatMap: `key="value"` lines in key order, without a final newline. */
export function formatMap(m: Record<string, string> = {}): string {
  return Object.keys(m).sort().map((k) => `${k}=${goQuote(m[k])}`).join("\n");
}

const SUBSCRIPTED = /^metadata\.(labels|annotations)\['(.*)'\]$/;

/** upstream's ExtractFieldPathAsString over metadata (the fields a downwardAPI volume may name). */
export function podMetadataField(pod: Obj, path: string): string {
  const m = SUBSCRIPTED.exec(path);
  if (m) return pod.metadata[m[1]]?.[m[2]] ?? "";
  switch (path) {
    case "metadata.annotations": return formatMap(pod.metadata.annotations);
    case "metadata.labels": return formatMap(pod.metadata.labels);
    case "metadata.name": return pod.metadata.name;
    case "metadata.namespace": return pod.metadata.namespace;
    case "metadata.uid": return pod.metadata.uid;
  }
  throw new Error(`unsupported fieldPath: ${path}`);
}

/** What the node knows of a pod beyond its object: the env var fieldRefs status.hostIP/podIP(s). */
export interface PodAddresses { hostIP: string; podIPs: string[] }

/** upstream's podFieldSelectorRuntimeValue: an env var's fieldRef. */
export function podFieldValue(pod: Obj, path: string, addr: PodAddresses): string {
  switch (path) {
    case "spec.nodeName": return pod.spec.nodeName ?? "";
    case "spec.serviceAccountName": return pod.spec.serviceAccountName ?? "";
    case "status.hostIP": return addr.hostIP;
    case "status.podIP": return addr.podIPs[0] ?? "";
    case "status.podIPs": return addr.podIPs.join(",");
  }
  return podMetadataField(pod, path);
}

/** The node's allocatable by resource name (quantities, or numbers in base units). */
export type Allocatable = { [R in "cpu" | "memory" | "ephemeral-storage"]?: string | number };

/** The resources a downward API reference may name, with the unit their divisor is counted in. */
const RESOURCE_UNITS: Record<keyof Allocatable, "milli" | "units"> = { cpu: "milli", memory: "units", "ephemeral-storage": "units" };

/** A quantity's MilliValue() or Value() (both round up), free of float noise. */
function scaled(q: number, unit: "milli" | "units"): number {
  return Math.ceil(Number((unit === "milli" ? q * 1000 : q).toPrecision(15)));
}

/**
 * upstream's ExtractContainerResourceValue after MergeContainerResourceLimits: limits the container does
 * not set are the node's allocatable; requests it does not set are 0.
 */
export function containerResourceValue(ref: Obj, container: Obj, allocatable: Allocatable): string {
  const [kind, name] = String(ref.resource).split(/\.(.*)/s) as [string, keyof Allocatable];
  const unit = Object.hasOwn(RESOURCE_UNITS, name) ? RESOURCE_UNITS[name] : undefined;
  if (!unit || (kind !== "limits" && kind !== "requests")) throw new Error(`unsupported container resource : ${ref.resource}`);
  const set = container.resources?.[kind]?.[name];
  const value = parseQuantity(set ?? (kind === "limits" ? allocatable[name] : undefined)) ?? 0;
  const divisor = parseQuantity(ref.divisor) || 1;
  return String(Math.ceil(scaled(value, unit) / scaled(divisor, unit)));
}

/** A downwardAPI volume item's resourceFieldRef: its containerName names the container. */
export function namedContainerResourceValue(ref: Obj, pod: Obj, allocatable: Allocatable): string {
  const c = [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])].find((x: Obj) => x.name === ref.containerName);
  if (!c) throw new Error(`container ${ref.containerName} not found`);
  return containerResourceValue(ref, c, allocatable);
}
