// The node's address when --node-ip is not given, chosen in upstream kubelet's order: the node name when it
// is an IP; else the node name's DNS addresses that could be a node's (not loopback, link-local, multicast
// or unspecified, and on one of this host's interfaces); else the address of the interface of the default
// route. Where upstream then fails to start, Kite takes the first non-loopback IPv4 address of any
// interface, and 127.0.0.1 when there is none (pods on the host's network then have loopback addresses,
// which Endpoints refuse: such a node's Services get no endpoints).
import { promises as dns } from "node:dns";
import { readFileSync } from "node:fs";
import { isIP, isIPv4 } from "node:net";
import { networkInterfaces } from "node:os";

/** What the choice reads of the host. */
export interface HostAddresses {
  /** The node name's addresses in DNS (or /etc/hosts). */
  resolved: string[];
  /** Each interface's IPv4 addresses. */
  interfaces: Record<string, string[]>;
  /** /proc/net/route's text. */
  routes: string;
}

const octets = (ip: string) => ip.split(".").map(Number);

/** An address a node may have (upstream's validateNodeIP, IPv4). */
function usable(ip: string): boolean {
  const [a, b] = octets(ip);
  return isIPv4(ip) && a !== 127 && a !== 0 && !(a === 169 && b === 254) && !(a >= 224 && a <= 239);
}

/** The interface of the default IPv4 route (destination and mask 0), if any. */
export function defaultRouteInterface(routes: string): string | undefined {
  for (const line of routes.split("\n").slice(1)) {
    const [iface, destination, , , , , , mask] = line.trim().split(/\s+/);
    if (destination === "00000000" && mask === "00000000") return iface;
  }
  return undefined;
}

/** The node's address for `nodeName` on a host showing `h`. */
export function chooseNodeIP(nodeName: string, h: HostAddresses): string {
  if (isIP(nodeName)) return nodeName;
  const local = new Set(Object.values(h.interfaces).flat());
  const named = h.resolved.find((ip) => usable(ip) && local.has(ip));
  if (named) return named;
  const viaDefault = (h.interfaces[defaultRouteInterface(h.routes) ?? ""] ?? []).find(usable);
  if (viaDefault) return viaDefault;
  return Object.values(h.interfaces).flat().find(usable) ?? "127.0.0.1";
}

/** How long the node name's lookup may take before the other sources decide. */
const LOOKUP_MS = 1000;

/** Reads this host and chooses the node's address. */
export async function hostNodeIP(nodeName: string): Promise<string> {
  const lookup = dns.lookup(nodeName, { all: true, family: 4 }).then((r) => r.map((a) => a.address), () => []);
  const resolved = await Promise.race([lookup, Bun.sleep(LOOKUP_MS).then(() => [] as string[])]);
  const interfaces: Record<string, string[]> = {};
  for (const [name, addrs] of Object.entries(networkInterfaces())) interfaces[name] = (addrs ?? []).filter((a) => a.family === "IPv4").map((a) => a.address);
  let routes = "";
  try { routes = readFileSync("/proc/net/route", "utf8"); } catch {}
  return chooseNodeIP(nodeName, { resolved, interfaces, routes });
}
