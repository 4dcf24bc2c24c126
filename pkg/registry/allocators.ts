// Cluster IPs and node ports of Services (--service-cluster-ip-range, --service-node-port-range): a
// Service without them gets free ones; ones asked for must be in range and not taken by another Service,
// with upstream's messages. What is taken is read from the Services stored (a consistent list), plus what
// writes still in flight on this server hold. Servers sharing one etcd can still race for one address;
// upstream prevents that with an allocation map in the store, not built here.
import { invalid } from "../api/status.ts";
import type { FieldCause, Obj } from "./types.ts";
import { intToIp, ipToInt, parseIPv4Range } from "../util/ipv4.ts";

export interface ServiceRanges {
  /** IPv4 CIDR, e.g. 10.96.0.0/12. */
  clusterIPRange: string;
  /** Inclusive node port range. */
  nodePorts: { min: number; max: number };
}

export const DEFAULT_SERVICE_RANGES: ServiceRanges = { clusterIPRange: "10.96.0.0/12", nodePorts: { min: 30000, max: 32767 } };

/** The range's first address: the `kubernetes` Service's, as upstream hands it out. */
export function firstServiceIP(cidr: string): string {
  return intToIp(parseIPv4Range(cidr).base + 1);
}

/** Parses N1-N2 (inclusive); throws a message fit for a flag error. */
export function parsePortRange(v: string): { min: number; max: number } {
  const m = /^(\d+)-(\d+)$/.exec(v.trim());
  const min = Number(m?.[1]), max = Number(m?.[2]);
  if (!m || min < 1 || max > 65535 || min > max) throw new Error(`"${v}" is not a port range N1-N2 within 1-65535`);
  return { min, max };
}

function hold<K>(m: Map<K, number>, k: K, by: 1 | -1) {
  const n = (m.get(k) ?? 0) + by;
  if (n > 0) m.set(k, n); else m.delete(k);
}

export class ServiceAllocator {
  private range: { base: number; size: number };
  /** Held by writes in flight on this server: address or port → how many hold it. */
  private heldIPs = new Map<string, number>();
  private heldPorts = new Map<number, number>();

  constructor(private ranges: ServiceRanges) {
    this.range = parseIPv4Range(ranges.clusterIPRange);
  }

  /**
   * Fills in a Service's cluster IP and node ports, or refuses the ones asked for (422). `others` are the
   * other Services stored; `old` is the Service being updated, if any. Returns the release of what it
   * handed out, for when the write is done (stored or failed); a dry run holds nothing.
   */
  admit(svc: Obj, old: Obj | undefined, others: Obj[], dryRun: boolean): () => void {
    const spec = svc.spec as Obj;
    const name = svc.metadata?.name as string;
    const causes: FieldCause[] = [];
    const ips: string[] = [], nodePorts: number[] = [];

    if (spec.type !== "ExternalName" && spec.clusterIP !== "None" && !(old && spec.clusterIP === old.spec?.clusterIP)) {
      const taken = new Set([...others.map((o) => o.spec?.clusterIP as string), ...this.heldIPs.keys()]);
      if (!spec.clusterIP) {
        const ip = this.freeIP(taken);
        if (!ip) throw invalid({ group: "", resource: "services", kind: "Service" }, name, [{ field: "spec.clusterIPs", message: "Internal error: range is full", reason: "FieldValueInvalid" }]);
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
        ips.push(ip);
      } else {
        const n = ipToInt(spec.clusterIP as string);
        const value = `[]string{${JSON.stringify(spec.clusterIP)}}`;
        if (n === undefined) {
          causes.push({ field: "spec.clusterIPs", message: `Invalid value: ${value}: must be a valid IP address`, reason: "FieldValueInvalid" });
        } else if (n < this.range.base || n >= this.range.base + this.range.size) {
          causes.push({ field: "spec.clusterIPs", message: `Invalid value: ${value}: failed to allocate IP ${spec.clusterIP}: provided IP (${spec.clusterIP}) is not in the valid range. The range of valid IPs is ${this.ranges.clusterIPRange}`, reason: "FieldValueInvalid" });
        } else if (taken.has(spec.clusterIP as string)) {
          causes.push({ field: "spec.clusterIPs", message: `Invalid value: ${value}: failed to allocate IP ${spec.clusterIP}: provided IP is already allocated`, reason: "FieldValueInvalid" });
        } else ips.push(spec.clusterIP as string);
      }
    }

    const ports = Array.isArray(spec.ports) ? (spec.ports as Obj[]) : [];
    if (spec.type === "NodePort" || spec.type === "LoadBalancer") {
      const oldPorts = new Set<number>((old?.spec?.ports ?? []).map((p: Obj) => p.nodePort).filter(Boolean));
      const taken = new Set<number>([...others.flatMap((o) => (o.spec?.ports ?? []).map((p: Obj) => p.nodePort)), ...this.heldPorts.keys()]);
      const { min, max } = this.ranges.nodePorts;
      ports.forEach((p, i) => {
        if (typeof p !== "object" || p === null) return;
        if (p.nodePort === undefined || p.nodePort === 0) {
          const free = this.freePort(taken);
          if (free === undefined) { causes.push({ field: `spec.ports[${i}].nodePort`, message: "Internal error: range is full", reason: "FieldValueInvalid" }); return; }
          p.nodePort = free;
          taken.add(free);
          nodePorts.push(free);
          return;
        }
        if (oldPorts.has(p.nodePort)) return; // kept from before
        if (!Number.isInteger(p.nodePort) || p.nodePort < min || p.nodePort > max) {
          causes.push({ field: `spec.ports[${i}].nodePort`, message: `Invalid value: ${p.nodePort}: provided port is not in the valid range. The range of valid ports is ${min}-${max}`, reason: "FieldValueInvalid" });
        } else if (taken.has(p.nodePort)) {
          causes.push({ field: `spec.ports[${i}].nodePort`, message: `Invalid value: ${p.nodePort}: provided port is already allocated`, reason: "FieldValueInvalid" });
        } else {
          taken.add(p.nodePort);
          nodePorts.push(p.nodePort);
        }
      });
    }
    if (causes.length) throw invalid({ group: "", resource: "services", kind: "Service" }, name, causes);
    if (dryRun) return () => {};
    ips.forEach((ip) => hold(this.heldIPs, ip, 1));
    nodePorts.forEach((p) => hold(this.heldPorts, p, 1));
    return () => {
      ips.forEach((ip) => hold(this.heldIPs, ip, -1));
      nodePorts.forEach((p) => hold(this.heldPorts, p, -1));
    };
  }

  /** A random free address, leaving out the range's network and broadcast addresses. */
  private freeIP(taken: Set<string>): string | undefined {
    const { base, size } = this.range;
    const start = 1 + Math.floor(Math.random() * (size - 2));
    for (let i = 0; i < size - 2; i++) {
      const ip = intToIp(base + 1 + ((start - 1 + i) % (size - 2)));
      if (!taken.has(ip)) return ip;
    }
    return undefined;
  }

  private freePort(taken: Set<number>): number | undefined {
    const { min, max } = this.ranges.nodePorts;
    const span = max - min + 1, start = Math.floor(Math.random() * span);
    for (let i = 0; i < span; i++) {
      const p = min + ((start + i) % span);
      if (!taken.has(p)) return p;
    }
    return undefined;
  }
}
