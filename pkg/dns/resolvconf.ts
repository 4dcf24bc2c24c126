// The /etc/resolv.conf a pod gets, as v1.21's kubelet builds it (pkg/kubelet/network/dns): by dnsPolicy,
// from the node's resolv.conf (--resolv-conf), --cluster-dns and --cluster-domain, then the pod's
// dnsConfig merged in, then cut to the resolver's limits (3 nameservers; 6 search domains, 256 chars).
import { readFileSync } from "node:fs";

export interface ResolvConf {
  nameservers: string[];
  searches: string[];
  options: string[];
}

/** The resolver's limits the kubelet keeps a pod within (validation.MaxDNSNameservers, ...). */
export const MAX_NAMESERVERS = 3;
export const MAX_SEARCH_PATHS = 6;
export const MAX_SEARCH_CHARS = 256;

/** The options a cluster-first pod gets (the kubelet's defaultDNSOptions). */
const CLUSTER_OPTIONS = ["ndots:5"];

/** Reads a resolv.conf: every nameserver, the last search line (trailing dots dropped), the last options. */
export function parseResolvConf(text: string): ResolvConf {
  const out: ResolvConf = { nameservers: [], searches: [], options: [] };
  for (const raw of text.split("\n")) {
    const line = raw.replace(/[#;].*$/, "").trim();
    const [key, ...fields] = line.split(/\s+/);
    if (key === "nameserver" && fields.length) out.nameservers.push(fields[0]);
    else if (key === "search") out.searches = fields.filter((s) => s !== ".").map((s) => s.replace(/\.$/, ""));
    else if (key === "options") out.options = fields;
  }
  return out;
}

/** The file's text, in containerd's order: search, nameservers, options. */
export function formatResolvConf(c: ResolvConf): string {
  let s = "";
  if (c.searches.length) s += `search ${c.searches.join(" ")}\n`;
  for (const ns of c.nameservers) s += `nameserver ${ns}\n`;
  if (c.options.length) s += `options ${c.options.join(" ")}\n`;
  return s;
}

export interface NodeDNS {
  /** --cluster-dns: the cluster DNS server's IPs. */
  clusterDNS: string[];
  /** --cluster-domain. */
  clusterDomain: string;
  /** The node's resolv.conf (--resolv-conf), parsed; undefined when --resolv-conf is "". */
  host?: ResolvConf;
  /** The node's IPs, for the loopback resolver used when --resolv-conf is "". */
  nodeIPs?: string[];
}

/** A node's DNS settings, its resolv.conf read now ("" for none; an unreadable one counts as empty, warned). */
export function readNodeDNS(o: { clusterDNS: string[]; clusterDomain: string; resolvConf: string }, nodeIPs: string[], warn: (m: string) => void): NodeDNS {
  let host: ResolvConf | undefined;
  if (o.resolvConf) {
    try { host = parseResolvConf(readFileSync(o.resolvConf, "utf8")); } catch (e) {
      warn(`Could not open resolv conf file: ${(e as Error).message}`);
      host = { nameservers: [], searches: [], options: [] };
    }
  }
  return { clusterDNS: o.clusterDNS, clusterDomain: o.clusterDomain, host, nodeIPs };
}

/** What the kubelet tells about a pod while building its resolv.conf (event reason and message). */
export interface DNSEvent { type: "Warning"; reason: string; message: string }

type PodDNSType = "cluster" | "host" | "none";

/** getPodDNSType: ClusterFirst on the host's network means the host's resolvers. */
function podDNSType(pod: PodLike): PodDNSType {
  switch (pod.spec?.dnsPolicy ?? "ClusterFirst") {
    case "ClusterFirstWithHostNet": return "cluster";
    case "ClusterFirst": return pod.spec?.hostNetwork ? "host" : "cluster";
    case "None": return "none";
    default: return "host";
  }
}

export interface PodLike {
  metadata: { name?: string; namespace?: string; uid?: string };
  spec?: {
    dnsPolicy?: string;
    hostNetwork?: boolean;
    dnsConfig?: { nameservers?: string[]; searches?: string[]; options?: { name: string; value?: string }[] };
  };
}

/** The pod's resolv.conf and the events the kubelet records while building it. */
export function podResolvConf(pod: PodLike, node: NodeDNS): { conf: ResolvConf; events: DNSEvent[] } {
  const events: DNSEvent[] = [];
  const host = node.host ?? { nameservers: [], searches: [], options: [] };
  let conf: ResolvConf = { nameservers: [...host.nameservers], searches: [...host.searches], options: [...host.options] };
  let type = podDNSType(pod);
  if (type === "cluster" && node.clusterDNS.length === 0) {
    const policy = pod.spec?.dnsPolicy ?? "ClusterFirst";
    events.push({
      type: "Warning", reason: "MissingClusterDNS",
      message: `pod: "${podDesc(pod)}". kubelet does not have ClusterDNS IP configured and cannot create Pod using "${policy}" policy. Falling back to "Default" policy.`,
    });
    type = "host";
  }
  if (type === "none") conf = { nameservers: [], searches: [], options: [] };
  else if (type === "cluster") {
    conf.nameservers = [...node.clusterDNS];
    conf.searches = clusterSearches(pod.metadata.namespace ?? "default", node.clusterDomain, host.searches);
    conf.options = [...CLUSTER_OPTIONS];
  } else if (!node.host) {
    // No resolv.conf for the node: the local resolver, and no search path.
    conf.nameservers = (node.nodeIPs ?? []).map((ip) => (ip.includes(":") ? "::1" : "127.0.0.1"));
    if (conf.nameservers.length === 0) conf.nameservers = ["127.0.0.1"];
    conf.searches = ["."];
  }
  const extra = pod.spec?.dnsConfig;
  if (extra) {
    conf.nameservers = unique([...conf.nameservers, ...(extra.nameservers ?? [])]);
    conf.searches = unique([...conf.searches, ...(extra.searches ?? [])]);
    conf.options = mergeOptions(conf.options, extra.options ?? []);
  }
  return { conf: fitLimits(conf, events), events };
}

/** `<ns>.svc.<domain> svc.<domain> <domain>` then the node's search domains, without repeats. */
function clusterSearches(namespace: string, domain: string, hostSearches: string[]): string[] {
  if (!domain) return [...hostSearches];
  return unique([`${namespace}.svc.${domain}`, `svc.${domain}`, domain, ...hostSearches]);
}

/** Options by name, the pod's replacing the node's ("ndots:5" + ndots=2 → "ndots:2"), in first-seen order. */
function mergeOptions(existing: string[], podOptions: { name: string; value?: string }[]): string[] {
  const byName = new Map<string, string>();
  for (const op of existing) {
    const i = op.indexOf(":");
    if (i >= 0) byName.set(op.slice(0, i), op.slice(i + 1));
    else byName.set(op, "");
  }
  for (const op of podOptions) byName.set(op.name, op.value ?? "");
  return [...byName].map(([name, value]) => (value ? `${name}:${value}` : name));
}

function fitLimits(conf: ResolvConf, events: DNSEvent[]): ResolvConf {
  if (conf.nameservers.length > MAX_NAMESERVERS) {
    conf.nameservers = conf.nameservers.slice(0, MAX_NAMESERVERS);
    events.push({ type: "Warning", reason: "DNSConfigForming", message: `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${conf.nameservers.join(" ")}` });
  }
  let searches = conf.searches, cut = false;
  if (searches.length > MAX_SEARCH_PATHS) { searches = searches.slice(0, MAX_SEARCH_PATHS); cut = true; }
  // Past 256 characters, whole domains go from the end until the line fits.
  while (searches.join(" ").length > MAX_SEARCH_CHARS) { searches = searches.slice(0, -1); cut = true; }
  if (cut) {
    conf.searches = searches;
    events.push({ type: "Warning", reason: "DNSConfigForming", message: `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${searches.join(" ")}` });
  }
  return conf;
}

/** The pod as the kubelet names it in messages (format.Pod): name_namespace(uid). */
function podDesc(pod: PodLike): string {
  return `${pod.metadata.name ?? ""}_${pod.metadata.namespace ?? ""}(${pod.metadata.uid ?? ""})`;
}

const unique = (xs: string[]) => [...new Set(xs)];
