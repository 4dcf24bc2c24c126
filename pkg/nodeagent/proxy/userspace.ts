// The userspace service proxy (--proxy-mode=userspace, upstream's kube-proxy userspace mode without its
// iptables redirects): for each TCP or UDP Service port the agent itself listens — on the cluster IP:port
// where it may bind it (root: on the loopback device, clusterips.ts), else on a proxy port of its own on 127.0.0.1, said in the
// log — and on the node port on every address of the node, and relays each connection (UDP: each client's
// datagrams) to a ready endpoint (balancer.ts). An unchanged Service port keeps its sockets across syncs;
// only its endpoints are updated.
import { consola } from "consola";
import { RoundRobin } from "./balancer.ts";
import { clusterIPsUnavailable, LABEL, removeClusterIPs, syncClusterIPs } from "./clusterips.ts";
import type { ServicePort } from "./serviceports.ts";
import { listenTCP } from "./tcprelay.ts";
import { listenUDP } from "./udprelay.ts";

interface Socket { readonly port: number | undefined; stop(): void }

/** One Service port's sockets and balancer. */
interface Portal {
  /** What its sockets depend on: a change means new sockets. */
  key: string;
  balancer: RoundRobin;
  sockets: Socket[];
  /** Where it listens instead of the cluster IP, when cluster IPs cannot be bound. */
  proxyPort?: number;
}

const portalKey = (sp: ServicePort) => `${sp.protocol}|${sp.clusterIP}|${sp.port}|${sp.nodePort}`;

export class UserspaceProxier {
  private readonly portals = new Map<string, Portal>();
  /** Why cluster IPs are not bound, once chosen at start. */
  readonly noClusterIPs = clusterIPsUnavailable();
  private readonly unsupported = new Set<string>();

  /** What the mode routes on this node, for the log and the Node's Ready message. */
  describe(): string {
    return this.noClusterIPs
      ? `node ports on every node address and, as cluster IPs cannot be bound (${this.noClusterIPs}), a proxy port per Service port on 127.0.0.1 (in the log); cluster IPs are not routed`
      : `cluster IPs (added to the loopback device as ${LABEL}) and node ports`;
  }

  /** Brings the sockets to `ports`. */
  async sync(ports: ServicePort[]): Promise<void> {
    const wanted = new Map<string, ServicePort>();
    for (const sp of ports) {
      if (sp.protocol === "sctp") {
        if (!this.unsupported.has(sp.name)) consola.warn(`service proxy: ${sp.name}: SCTP is not proxied in userspace mode`);
        this.unsupported.add(sp.name);
        continue;
      }
      wanted.set(sp.name, sp);
    }
    for (const [name, p] of this.portals) {
      const sp = wanted.get(name);
      if (!sp || portalKey(sp) !== p.key) this.close(name, p);
    }
    if (!this.noClusterIPs) await syncClusterIPs(new Set([...wanted.values()].map((sp) => sp.clusterIP)));
    for (const [name, sp] of wanted) {
      const p = this.portals.get(name);
      if (p) p.balancer.update(sp.backends, sp.affinitySeconds);
      else this.portals.set(name, await this.open(sp));
    }
  }

  private async open(sp: ServicePort): Promise<Portal> {
    const balancer = new RoundRobin(sp.affinitySeconds);
    balancer.update(sp.backends, sp.affinitySeconds);
    const portal: Portal = { key: portalKey(sp), balancer, sockets: [] };
    const listen = async (hostname: string, port: number, what: string) => {
      try {
        const s = sp.protocol === "udp" ? await listenUDP(hostname, port, balancer, sp.name) : listenTCP(hostname, port, balancer, sp.name);
        portal.sockets.push(s);
        return s.port;
      } catch (e) {
        consola.warn(`service proxy: ${sp.name}: cannot listen on ${what} ${hostname}:${port}/${sp.protocol}: ${(e as Error).message}`);
        return undefined;
      }
    };
    const where: string[] = [];
    if (this.noClusterIPs) {
      portal.proxyPort = await listen("127.0.0.1", 0, "a proxy port on");
      if (portal.proxyPort) where.push(`proxy port 127.0.0.1:${portal.proxyPort} for cluster IP ${sp.clusterIP}:${sp.port}`);
    } else if (await listen(sp.clusterIP, sp.port, "cluster IP")) where.push(`${sp.clusterIP}:${sp.port}`);
    if (sp.nodePort && (await listen("0.0.0.0", sp.nodePort, "node port"))) where.push(`node port ${sp.nodePort}`);
    consola.info(`service proxy: ${sp.name}/${sp.protocol} at ${where.join(", ") || "nothing"}`);
    return portal;
  }

  private close(name: string, p: Portal): void {
    for (const s of p.sockets) s.stop();
    this.portals.delete(name);
  }

  /** Closes every socket; `removeAddresses` (kite up) also removes the cluster IPs' device. */
  async stop(removeAddresses: boolean): Promise<void> {
    for (const [name, p] of this.portals) this.close(name, p);
    if (removeAddresses && !this.noClusterIPs) await removeClusterIPs();
  }
}
