// How a name in the cluster domain reads (CoreDNS kubernetes plugin, v1.8 as shipped with Kubernetes
// v1.21). Read from the right after the domain: `svc` or `pod`, the namespace, the service (or the pod's
// dashed IP), then either one endpoint label or `_port._proto`; anything longer names nothing.
import { isIP } from "node:net";

export type Kind = "svc" | "pod";

export type ParsedName =
  /** The domain itself, `svc.<domain>` or `pod.<domain>`: they exist and hold nothing (NODATA). */
  | { type: "apex" }
  /** Not a name the cluster serves: NXDOMAIN. */
  | { type: "invalid" }
  | {
    type: "record"; kind: Kind; namespace: string;
    /** The service, or for pods the dashed IP; "" when the name stops at the namespace. */
    service: string;
    /** The leftmost label of a 4-label name (an endpoint's hostname or dashed IP), else "". */
    endpoint: string;
    /** From `_port._proto`; "*" (any) when the name has none. */
    port: string;
    protocol: string;
  };

/** The labels of a name, lower-cased (names match without regard to case), without a trailing dot. */
export function labels(name: string): string[] {
  const n = name.toLowerCase().replace(/\.$/, "");
  return n === "" ? [] : n.split(".");
}

/** True when name is domain or under it. */
export function inDomain(name: string, domain: string): boolean {
  const n = labels(name), d = labels(domain);
  if (n.length < d.length) return false;
  return d.every((l, i) => n[n.length - d.length + i] === l);
}

/** Parses a name that inDomain found under domain. */
export function parseName(name: string, domain: string): ParsedName {
  const segs = labels(name).slice(0, labels(name).length - labels(domain).length);
  if (segs.length === 0) return { type: "apex" };
  const kind = segs.pop()!;
  if (kind !== "svc" && kind !== "pod") return { type: "invalid" };
  if (segs.length === 0) return { type: "apex" };
  const r: Extract<ParsedName, { type: "record" }> = { type: "record", kind, namespace: segs.pop()!, service: "", endpoint: "", port: "*", protocol: "*" };
  if (segs.length === 0) return r;
  r.service = segs.pop()!;
  if (segs.length === 1) r.endpoint = segs[0];
  else if (segs.length === 2) {
    r.port = stripUnderscore(segs[0]);
    r.protocol = stripUnderscore(segs[1]);
  } else if (segs.length > 2) return { type: "invalid" };
  return r;
}

const stripUnderscore = (s: string) => (s.startsWith("_") ? s.slice(1) : s);

/** "*" and "any" match everything (CoreDNS's wildcards); otherwise names compare without regard to case. */
export function matches(asked: string, value: string): boolean {
  return asked === "*" || asked === "any" || asked === value.toLowerCase();
}

/** An endpoint's DNS label: its hostname, else its IP with dashes (`10-0-0-1`, `fd00--1`). */
export function endpointLabel(address: { ip: string; hostname?: string }): string {
  if (address.hostname) return address.hostname;
  return address.ip.includes(".") ? address.ip.replaceAll(".", "-") : address.ip.replaceAll(":", "-");
}

/** The IP a pod name spells (`10-0-0-1` → 10.0.0.1, `fd00--1` → fd00::1), or undefined if none. */
export function podIP(label: string): string | undefined {
  const ip = (label.split("-").length === 4 && !label.includes("--")) ? label.replaceAll("-", ".") : label.replaceAll("-", ":");
  return isIP(ip) ? ip : undefined;
}
