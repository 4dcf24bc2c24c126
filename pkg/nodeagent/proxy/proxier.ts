// The node agent's service proxy (upstream's kube-proxy, run inside the agent): Services and Endpoints
// from the API server's informers become table kite's rules (nftables.ts), rewritten at most every
// MIN_SYNC_MS after a change. Mode "nftables" needs root on Linux and `nft`; without them nothing is
// routed to cluster IPs and node ports, which is said once in the log and in the Node's Ready message
// (--proxy-mode=none, a choice, only in the log). No userspace fallback: upstream's listened on each
// cluster IP by redirecting with iptables, which is what is missing then. A standalone agent leaves its rules at exit for its successor, as kube-proxy
// does; `kite up` (stopPodsOnExit) removes them with the rest of the cluster.
import { readFileSync, writeFileSync } from "node:fs";
import { consola } from "consola";
import type { InformerFactory, SharedInformer } from "../../client/informer.ts";
import { RESOURCES } from "../../client/resources.ts";
import type { Obj } from "../node.ts";
import { apply, existing, removeTable, render, TABLE } from "./nftables.ts";
import { servicePorts } from "./serviceports.ts";

/** Upstream's --iptables-min-sync-period default: at most one rewrite a second; here shorter, rewrites are cheap. */
const MIN_SYNC_MS = 100;

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

export type ProxyMode = "auto" | "nftables" | "none";

export class ServiceProxy {
  private timer?: ReturnType<typeof setTimeout>;
  private syncing = Promise.resolve();
  private masqueradeAll = false;

  private constructor(private readonly services: SharedInformer, private readonly endpoints: SharedInformer) {}

  /** The proxy for `mode`; `say` is told, once, when it routes nothing. */
  static start(mode: ProxyMode, factory: InformerFactory, say: (message: string) => void): ServiceProxy | undefined {
    if (mode === "none") {
      consola.info("service proxy off (--proxy-mode=none)");
      return undefined;
    }
    const why = nftablesUnavailable();
    if (why) {
      const message = `service proxy off: ${why}; cluster IPs and node ports are not routed on this node`;
      consola.warn(message);
      say(message);
      return undefined;
    }
    const proxy = new ServiceProxy(factory.informerFor(RESOURCES.services), factory.informerFor(RESOURCES.endpoints));
    proxy.masqueradeAll = !prepareKernel();
    consola.info(`service proxy: nftables (table ip ${TABLE})${proxy.masqueradeAll ? ", masquerading all service traffic: bridged frames bypass the packet filter (no br_netfilter)" : ""}`);
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
      await apply(render(ports, await existing(), this.masqueradeAll));
    } catch (e) {
      consola.warn(`service proxy: failed to write the rules: ${(e as Error).message}`);
      // as upstream, retried: the next change, or a second from now
      setTimeout(() => this.schedule(), 1000);
    }
  }

  /** Stops syncing; `removeRules` (kite up) deletes table kite too. */
  async stop(removeRules: boolean): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.syncing;
    if (removeRules) await removeTable();
  }
}
