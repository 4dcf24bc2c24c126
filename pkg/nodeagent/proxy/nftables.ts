// The proxy's packet-filter rules in nftables table `ip kite`, as upstream's kube-proxy writes its
// iptables chains (KUBE-SERVICES, KUBE-SVC-*, KUBE-SEP-*, KUBE-NODEPORTS, KUBE-POSTROUTING): packets to a
// ClusterIP:port, or to a node address at a NodePort, jump to the service's chain, which picks a ready
// endpoint (round-robin, numgen; a ClientIP-affine client's last one while its set entry lives) and DNATs
// to it; a Service with no ready endpoint is rejected. Each sync rewrites every chain in one `nft -f`
// transaction; the affinity sets are kept (only their rules are rewritten), so clients stay pinned
// across syncs. Masqueraded (mark 0x4000, upstream's --iptables-masquerade-bit 14): traffic from the node
// itself, to a NodePort, hairpin traffic (a pod reaching itself), and, when bridged frames bypass the
// packet filter (no br_netfilter), all of it, since a backend's reply would else skip the un-DNAT.
import type { ServicePort } from "./serviceports.ts";

export const TABLE = "kite";
const MASQ = "0x4000";

const hash = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex").slice(0, 12);
/** The names of a port's chains and sets: short, stable for the same port and endpoints. */
export const svcChain = (sp: ServicePort) => `svc-${hash(sp.name)}`;
const epChain = (sp: ServicePort, i: number) => `ep-${hash(`${sp.name}/${sp.backends[i].ip}:${sp.backends[i].port}`)}`;
const affinitySet = (sp: ServicePort, i: number) => `aff-${hash(`${sp.name}/${sp.backends[i].ip}:${sp.backends[i].port}/${sp.affinitySeconds}`)}`;

/** The base chains, hooked where upstream's are: NAT before routing and on the node's own output; filter for rejects. */
const BASE: Record<string, string> = {
  prerouting: "type nat hook prerouting priority -100; policy accept;",
  output: "type nat hook output priority -100; policy accept;",
  postrouting: "type nat hook postrouting priority 100; policy accept;",
  "filter-output": "type filter hook output priority 0; policy accept;",
  "filter-forward": "type filter hook forward priority 0; policy accept;",
};

export interface Existing { chains: string[]; sets: string[] }

/** The `nft -f` script bringing table kite from `existing` to routing `ports`. */
export function render(ports: ServicePort[], existing: Existing, masqueradeAll: boolean): string {
  const chains = new Map<string, string[]>(Object.keys(BASE).map((c) => [c, []]));
  for (const c of ["services", "nodeports", "reject-services"]) chains.set(c, []);
  const sets = new Map<string, number>();
  const rule = (chain: string, r: string) => chains.get(chain)!.push(r);
  const mark = `meta mark set meta mark | ${MASQ}`;

  rule("prerouting", "jump services");
  rule("output", "jump services");
  rule("postrouting", `meta mark & ${MASQ} == ${MASQ} meta mark set meta mark ^ ${MASQ} masquerade`);
  rule("filter-output", "jump reject-services");
  rule("filter-forward", "jump reject-services");
  for (const sp of ports) {
    const comment = `comment "${sp.name}"`;
    const match = `${sp.protocol} dport ${sp.port}`;
    if (!sp.backends.length) {
      rule("reject-services", `ip daddr ${sp.clusterIP} ${match} reject ${comment}`);
      if (sp.nodePort) rule("reject-services", `fib daddr type local ${sp.protocol} dport ${sp.nodePort} reject ${comment}`);
      continue;
    }
    const svc = svcChain(sp);
    chains.set(svc, []);
    rule("services", `ip daddr ${sp.clusterIP} ${match} goto ${svc} ${comment}`);
    if (sp.nodePort) rule("nodeports", `${sp.protocol} dport ${sp.nodePort} ${mark} goto ${svc} ${comment}`);
    rule(svc, masqueradeAll ? mark : `fib saddr type local ${mark}`);
    const eps = sp.backends.map((_, i) => epChain(sp, i));
    sp.backends.forEach((b, i) => {
      const ep = eps[i];
      chains.set(ep, []);
      rule(ep, `ip saddr ${b.ip} ${mark}`);
      if (sp.affinitySeconds) {
        const set = affinitySet(sp, i);
        sets.set(set, sp.affinitySeconds);
        rule(svc, `ip saddr @${set} goto ${ep}`);
        rule(ep, `update @${set} { ip saddr timeout ${sp.affinitySeconds}s }`);
      }
      rule(ep, `meta l4proto ${sp.protocol} dnat to ${b.ip}:${b.port}`);
    });
    rule(svc, eps.length === 1 ? `goto ${eps[0]}` : `numgen inc mod ${eps.length} vmap { ${eps.map((ep, i) => `${i} : goto ${ep}`).join(", ")} }`);
  }
  // node ports last: a ClusterIP match wins, as upstream's KUBE-NODEPORTS is the last rule of KUBE-SERVICES
  rule("services", "fib daddr type local jump nodeports");

  const lines = [`add table ip ${TABLE}`];
  const stale = existing.chains.filter((c) => !chains.has(c));
  for (const c of stale) lines.push(`flush chain ip ${TABLE} ${c}`);
  for (const c of chains.keys()) lines.push(BASE[c] ? `add chain ip ${TABLE} ${c} { ${BASE[c]} }` : `add chain ip ${TABLE} ${c}`, `flush chain ip ${TABLE} ${c}`);
  for (const [s, seconds] of sets) lines.push(`add set ip ${TABLE} ${s} { type ipv4_addr; flags dynamic,timeout; timeout ${seconds}s; }`);
  for (const [c, rules] of chains) for (const r of rules) lines.push(`add rule ip ${TABLE} ${c} ${r}`);
  for (const c of stale) lines.push(`delete chain ip ${TABLE} ${c}`);
  for (const s of existing.sets) if (!sets.has(s)) lines.push(`delete set ip ${TABLE} ${s}`);
  return `${lines.join("\n")}\n`;
}

async function nft(args: string[], input?: string): Promise<string> {
  const p = Bun.spawn(["nft", ...args], { stdin: input === undefined ? "ignore" : new Blob([input]), stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`nft: ${err.trim() || `exit status ${code}`}`);
  return out;
}

/** The chains and sets table kite has now (none when there is no table). */
export async function existing(): Promise<Existing> {
  const out = await nft(["-j", "list", "table", "ip", TABLE]).catch(() => undefined);
  const found: Existing = { chains: [], sets: [] };
  for (const item of out ? JSON.parse(out).nftables ?? [] : []) {
    if (item.chain) found.chains.push(item.chain.name);
    if (item.set) found.sets.push(item.set.name);
  }
  return found;
}

/** Applies a rendered script, all of it or nothing. */
export const apply = (script: string) => nft(["-f", "-"], script).then(() => undefined);

/** Removes table kite and so every rule of the proxy. */
export const removeTable = () => nft(["delete", "table", "ip", TABLE]).then(() => undefined, () => undefined);
