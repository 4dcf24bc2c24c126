// Downward API references (env valueFrom and downwardAPI volume files): which pod fields and which
// container resources may be exposed, as upstream's ObjectFieldSelector and ResourceFieldSelector checks.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { str } from "./decode.ts";
import { qualifiedName } from "./names.ts";
import { quantity, quantityText } from "./quantity.ts";

/** Pod fields the v1 downward API knows at all (ConvertDownwardAPIFieldLabel). */
const KNOWN_FIELDS = new Set([
  "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
  "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
  "status.phase", "status.hostIP", "status.podIP", "status.podIPs",
]);
export const ENV_FIELDS = ["metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.podIP", "status.podIPs"];
export const VOLUME_FIELDS = ["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"];

/** `metadata.labels['app']` as [path, subscript]. */
function subscripted(fp: string): [string, string] | undefined {
  if (!fp.endsWith("']")) return undefined;
  const at = fp.indexOf("['");
  return at > 0 ? [fp.slice(0, at), fp.slice(at + 2, -2)] : undefined;
}

export function objectFieldSelector(errs: Errs, s: Obj, path: string, supported: string[]) {
  const version = str(s.apiVersion, `${path}.apiVersion`);
  if (!version) return errs.required(`${path}.apiVersion`);
  let fp = str(s.fieldPath, `${path}.fieldPath`);
  if (!fp) return errs.required(`${path}.fieldPath`);
  const sub = subscripted(fp);
  let problem: string | undefined;
  if (version !== "v1") problem = `unsupported pod version: ${version}`;
  else if (sub && sub[0] !== "metadata.annotations" && sub[0] !== "metadata.labels") problem = `field label does not support subscript: ${fp}`;
  else if (!sub && fp === "spec.host") fp = "spec.nodeName"; // what old v1 clients send
  else if (!sub && !KNOWN_FIELDS.has(fp)) problem = `field label not supported: ${fp}`;
  if (problem) return errs.invalid(`${path}.fieldPath`, fp, `error converting fieldPath: ${problem}`);
  if (sub) errs.invalidEach(path, sub[1], qualifiedName(sub[0] === "metadata.annotations" ? sub[1].toLowerCase() : sub[1]));
  else if (!supported.includes(fp)) errs.notSupported(`${path}.fieldPath`, fp, supported);
}

const RESOURCES = ["limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"];
const BYTE_DIVISORS = ["1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"];
const BYTES = `only divisor's values ${BYTE_DIVISORS.join(", ")} are supported with the`;
/** The divisors each resource allows, and the message when another is given. */
const DIVISORS: [RegExp, string[], string][] = [
  [/^(limits|requests)\.cpu$/, ["1m", "1"], "only divisor's values 1m and 1 are supported with the cpu resource"],
  [/^(limits|requests)\.memory$/, BYTE_DIVISORS, `${BYTES} memory resource`],
  [/^(limits|requests)\.ephemeral-storage$/, BYTE_DIVISORS, `${BYTES} local ephemeral storage resource`],
  [/^(limits|requests)\.hugepages-/, BYTE_DIVISORS, `${BYTES} hugepages resource`],
];

/** A resourceFieldRef; a volume's must name its container. */
export function resourceFieldSelector(errs: Errs, s: Obj, path: string, volume: boolean) {
  const resource = str(s.resource, `${path}.resource`) ?? "";
  if (volume && !str(s.containerName, `${path}.containerName`)) errs.required(`${path}.containerName`);
  else if (!resource) errs.required(`${path}.resource`);
  else if (!RESOURCES.includes(resource) && !/^(limits|requests)\.hugepages-/.test(resource)) errs.notSupported(`${path}.resource`, resource, RESOURCES);
  if (s.divisor === undefined || s.divisor === null) return;
  if (quantity(s.divisor) === 0) return; // a divisor that is no quantity fails the decode (400)
  const divisor = quantityText(s.divisor);
  for (const [re, allowed, message] of DIVISORS) {
    if (re.test(resource) && !allowed.includes(divisor)) errs.invalid(`${path}.divisor`, resource, message);
  }
}
