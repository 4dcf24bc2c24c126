// The node agent's service proxy (upstream's kube-proxy, run inside the agent): Services and Endpoints
// from the API server's informers become what routes them, rebuilt at most every MIN_SYNC_MS after a
// change, by one of two modes:
// - nftables (nftables.ts): table kite's rules DNAT cluster IPs and node ports to the endpoints; needs
//   root on Linux and `nft`.
// - userspace (userspace.ts): the agent listens on each Service port and relays connections; works
//   unprivileged, where it serves node ports and a proxy port per Service port but no cluster IP.
// "auto" is nftables where it can run, else userspace, said once in the log and in the Node's Ready
// message; so is anything a chosen mode cannot route here (--proxy-mode=none, a choice, only in the log).
// A standalone agent leaves its rules and cluster IP device at exit for its successor, as kube-proxy
// does; `kite up` (stopPodsOnExit) removes them with the rest of the cluster.
import { readFileSync, writeFileSync } from "node:fs";
import { consola } from "consola";
import type { InformerFactory, SharedInformer } from "../../client/informer.ts";
import { RESOURCES } from "../../client/resources.ts";
import type { Obj } from "../node.ts";
import { apply, existing, removeTable, render, TABLE } from "./nftables.ts";
import { type ServicePort, servicePorts } from "./serviceports.ts";
import { UserspaceProxier } from "./userspace.ts";

/** Upstream's --iptables-min-sync-period default: at most one rewrite a second; here shorter, rewrites are cheap. */
const MIN_SYNC_MS = 100;

export const PROXY_MODES = ["auto", "nftables", "userspace", "none"] as const;
export type ProxyMode = (typeof PROXY_MODES)[number];

/** Why the proxy cannot program the packet filter here, or undefined when it can. */
export function nftablesUnavailable(): string | undefined {
  if (process.platform !== "linux") return `nftables needs Linux, not ${process.platform}`;
  if (process.getuid?.() !== 0) return "programming nftables needs root";
  if (!Bun.which("nft")) return `nftables' "nft" is not in $PATH`;
  return undefined;
}

const readSysctl = (name: string) => { try { return readFileSync(`/proc/sys/${name}`, "utf8").trim(); } catch { return undefined; } };

/**
 * What the rules need of the kernel, as kube-proxy and the bridge plugin set it: forwarding (pods reach
 * other pods through the node), route_localnet (a NodePort on 127.0.0.1 DNATs to a pod). True when bridged
 * frames pass the packet filter (br_netfilter), so a pod's reply to a pod on the same bridge is un-DNATed.
 */
function prepareKernel(): boolean {
  for (const name of ["net/ipv4/ip_forward", "net/ipv4/conf/all/route_localnet"]) {
    try { writeFileSync(`/proc/sys/${name}`, "1"); } catch (e) { consola.warn(`service proxy: cannot set ${name.replaceAll("/", ".")}: ${(e as Error).message}`); }
  }
  return readSysctl("net/bridge/bridge-nf-call-iptables") === "1";
}

/** What routes the Service ports: a mode's implementation. */
interface Proxier {
  sync(ports: ServicePort[]): Promise<void>;
  /** `remove`: also what it left in the kernel (rules, addresses). */
  stop(remove: boolean): Promise<void>;
}

/** Table kite's rules (nftables.ts), rewritten whole on each sync. */
class NftablesProxier implements Proxier {
  /** Masquerade everything when bridged frames bypass the packet filter (no br_netfilter). */
  readonly masqueradeAll = !prepareKernel();
  async sync(ports: ServicePort[]) { await apply(render(ports, await existing(), this.masqueradeAll)); }
  async stop(remove: boolean) { if (remove) await removeTable(); }
}

export class ServiceProxy {
  private timer?: ReturnType<typeof setTimeout>;
  private syncing = Promise.resolve();

  private constructor(private readonly proxier: Proxier, private readonly services: SharedInformer, private readonly endpoints: SharedInformer) {}

  /** The proxy for `mode`; `say` is told, once, what it falls back to or cannot route. */
  static start(mode: ProxyMode, factory: InformerFactory, say: (message: string) => void): ServiceProxy | undefined {
    if (mode === "none") {
      consola.info("service proxy off (--proxy-mode=none)");
      return undefined;
    }
    const tell = (message: string) => { consola.warn(message); say(message); };
    const noNftables = mode === "userspace" ? undefined : nftablesUnavailable();
    if (mode === "nftables" && noNftables) return void tell(`service proxy off: ${noNftables}; cluster IPs and node ports are not routed on this node`);
    let proxier: Proxier;
    if (mode === "userspace" || noNftables) {
      const userspace = new UserspaceProxier();
      const what = `service proxy: userspace${noNftables ? ` (${noNftables})` : ""}, routing ${userspace.describe()}`;
      if (noNftables || userspace.noClusterIPs) tell(what);
      else consola.info(what);
      proxier = userspace;
    } else {
      const nft = new NftablesProxier();
      consola.info(`service proxy: nftables (table ip ${TABLE})${nft.masqueradeAll ? ", masquerading all service traffic: bridged frames bypass the packet filter (no br_netfilter)" : ""}`);
      proxier = nft;
    }
    const proxy = new ServiceProxy(proxier, factory.informerFor(RESOURCES.services), factory.informerFor(RESOURCES.endpoints));
    const changed = { add: () => proxy.schedule(), update: () => proxy.schedule(), delete: () => proxy.schedule() };
    proxy.services.addEventHandler(changed);
    proxy.endpoints.addEventHandler(changed);
    return proxy;
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.syncing = this.syncing.then(() => this.sync());
    }, MIN_SYNC_MS);
  }

  private async sync(): Promise<void> {
    const ports = servicePorts(this.services.store.list() as Obj[], (key) => this.endpoints.store.get(key) as Obj | undefined);
    try {
      await this.proxier.sync(ports);
    } catch (e) {
      consola.warn(`service proxy: failed to sync: ${(e as Error).message}`);
      // as upstream, retried: the next change, or a second from now
      setTimeout(() => this.schedule(), 1000);
    }
  }

  /** Stops syncing; `remove` (kite up) also removes what the mode left in the kernel. */
  async stop(remove: boolean): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.syncing;
    await this.proxier.stop(remove);
  }
}
