// The answers for names in the cluster domain, read from the informers' stores (CoreDNS kubernetes plugin
// of v1.21's CoreDNS 1.8, "pods insecure"): a Service's ClusterIPs, a headless Service's ready endpoint
// addresses (by hostname or dashed IP too), SRV per matching port, a pod's A record from its dashed IP,
// an ExternalName as a CNAME. A name that holds nothing is NXDOMAIN; a name that exists but has no
// record of the asked type is NODATA; both carry the zone's SOA.
import type { Answer } from "dns-packet";
import { isIPv4, isIPv6 } from "node:net";
import type { Obj } from "../client/client.ts";
import type { Store } from "../client/store.ts";
import { endpointLabel, matches, parseName, podIP, type ParsedName } from "./names.ts";

/** CoreDNS's default TTL for the kubernetes plugin's records, and the SOA's minimum. */
export const DEFAULT_TTL = 5;

export interface LocalAnswer {
  rcode: "NOERROR" | "NXDOMAIN";
  answers: Answer[];
  additionals: Answer[];
  authorities: Answer[];
  /** An ExternalName's target, for the server to resolve and add (the CNAME's chase). */
  chase?: string;
}

/** One thing a name stands for: an address (with a port) reached under `target`, or another name. */
type Item = { ip: string; port: number; target: string } | { cname: string };

export interface ClusterStores {
  services: Store;
  endpoints: Store;
  namespaces: Store;
}

export class ClusterRecords {
  /** Unix seconds of the last change seen: the SOA's serial, as CoreDNS's. */
  serial = Math.floor(Date.now() / 1000);

  constructor(private readonly stores: ClusterStores, readonly domain: string, readonly ttl = DEFAULT_TTL) {
    this.domain = domain.toLowerCase().replace(/\.$/, "");
  }

  /** Called on every informer event. */
  touch(): void { this.serial = Math.floor(Date.now() / 1000); }

  /** The answer for qname (which is in the domain) and qtype. */
  answer(qname: string, qtype: string): LocalAnswer {
    const parsed = parseName(qname, this.domain);
    const items = this.items(parsed);
    if (items === undefined) return this.negative("NXDOMAIN");
    if (parsed.type === "apex" && qtype === "SOA" && qname.replace(/\.$/, "").toLowerCase() === this.domain) {
      return { rcode: "NOERROR", answers: [this.soa()], additionals: [], authorities: [] };
    }
    const cname = items.find((i) => "cname" in i);
    if (cname && "cname" in cname) {
      const answers: Answer[] = [{ type: "CNAME", name: qname, ttl: this.ttl, class: "IN", data: cname.cname }];
      return { rcode: "NOERROR", answers, additionals: [], authorities: [], chase: qtype === "CNAME" ? undefined : cname.cname };
    }
    const addrs = items.filter((i): i is Extract<Item, { ip: string }> => "ip" in i);
    const answers: Answer[] = [], additionals: Answer[] = [];
    if (qtype === "A" || qtype === "AAAA") {
      const fits = qtype === "A" ? isIPv4 : isIPv6;
      for (const ip of new Set(addrs.map((a) => a.ip))) if (fits(ip)) answers.push(this.address(qname, ip));
    } else if (qtype === "SRV") {
      const srvs = dedupe(addrs.filter((a) => a.port >= 0), (a) => `${a.target}:${a.port}`);
      // CoreDNS spreads a weight of 100 over the records of one priority (all are priority 0).
      const weight = Math.floor(100 / Math.max(srvs.length, 1));
      for (const a of srvs) answers.push({ type: "SRV", name: qname, ttl: this.ttl, class: "IN", data: { priority: 0, weight, port: a.port, target: a.target } });
      for (const a of dedupe(srvs, (a) => `${a.target}/${a.ip}`)) additionals.push(this.address(a.target, a.ip));
    }
    if (answers.length === 0) return this.negative("NOERROR");
    return { rcode: "NOERROR", answers, additionals, authorities: [] };
  }

  /** What a name stands for; undefined when it does not exist, [] when it exists and holds nothing. */
  private items(p: ParsedName): Item[] | undefined {
    if (p.type === "apex") return [];
    if (p.type === "invalid") return undefined;
    if (!this.stores.namespaces.get(p.namespace)) return undefined;
    if (p.service === "") return [];
    if (p.kind === "pod") {
      const ip = podIP(p.service);
      return ip ? [{ ip, port: -1, target: "" }] : undefined;
    }
    const svc = this.stores.services.get(`${p.namespace}/${p.service}`);
    if (!svc) return undefined;
    const items = this.serviceItems(svc, p as Extract<ParsedName, { type: "record" }>);
    return items.length ? items : undefined;
  }

  private serviceItems(svc: Obj, p: Extract<ParsedName, { type: "record" }>): Item[] {
    const spec = svc.spec ?? {};
    const base = `${svc.metadata.name}.${svc.metadata.namespace}.svc.${this.domain}`;
    if (spec.type === "ExternalName") return p.endpoint ? [] : [{ cname: spec.externalName }];
    const items: Item[] = [];
    if (spec.clusterIP === "None" || p.endpoint) {
      const eps = this.stores.endpoints.get(`${svc.metadata.namespace}/${svc.metadata.name}`);
      for (const subset of eps?.subsets ?? []) {
        // A subset without ports still has addresses: they answer A queries, not SRV (port -1).
        const ports: Obj[] = subset.ports?.length ? subset.ports : [{ port: -1, name: "" }];
        for (const addr of subset.addresses ?? []) {
          const label = endpointLabel(addr);
          if (p.endpoint && !matches(p.endpoint, label)) continue;
          for (const port of ports) {
            if (!portMatches(p, port)) continue;
            items.push({ ip: addr.ip, port: port.port, target: `${label}.${base}` });
          }
        }
      }
      return items;
    }
    const ips: string[] = spec.clusterIPs?.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
    for (const port of spec.ports ?? []) {
      if (!portMatches(p, port)) continue;
      for (const ip of ips) items.push({ ip, port: port.port, target: base });
    }
    return items;
  }

  private address(name: string, ip: string): Answer {
    return { type: isIPv4(ip) ? "A" : "AAAA", name, ttl: this.ttl, class: "IN", data: ip };
  }

  /** NXDOMAIN, or NODATA as NOERROR with no answers: the zone's SOA in the authority section. */
  private negative(rcode: LocalAnswer["rcode"]): LocalAnswer {
    return { rcode, answers: [], additionals: [], authorities: [this.soa()] };
  }

  soa(): Answer {
    return {
      type: "SOA", name: this.domain, ttl: Math.min(this.ttl, 300), class: "IN",
      data: {
        mname: `ns.dns.${this.domain}`, rname: `hostmaster.${this.domain}`, serial: this.serial,
        refresh: 7200, retry: 1800, expire: 86400, minimum: this.ttl,
      },
    };
  }
}

function portMatches(p: { port: string; protocol: string }, port: Obj): boolean {
  return matches(p.port, port.name ?? "") && matches(p.protocol, port.protocol ?? "TCP");
}

function dedupe<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const i of items) if (!seen.has(key(i))) seen.set(key(i), i);
  return [...seen.values()];
}
