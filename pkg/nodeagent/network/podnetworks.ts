// Each pod's own network, as upstream's kubenet plugin builds it: a network namespace (/run/netns/NAME,
// made by `ip netns add`) with loopback up and one end of a veth pair as eth0, holding an address of the
// node's pod range with a default route via the bridge; the other end on the node's bridge, whose
// address is the range's first. hostNetwork pods, and every pod when the agent may not make namespaces,
// use the host's network and its address.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { consola } from "consola";
import type { Obj } from "../node.ts";
import { AddressBook } from "./addresses.ts";
import { ipBatchIn, IpQueue, ipOutput } from "./ip.ts";

export const BRIDGE = "kite0";
export const NETNS_DIR = "/run/netns";

export interface PodNetwork {
  ip: string;
  /** The path of the pod's network namespace; absent when the pod uses the host's network. */
  netns?: string;
}

/** The pod's namespace name: uids are unique, so two pods (or two agents' pods) never share one. */
export const netnsName = (uid: string) => `kite-${uid.replace(/[^A-Za-z0-9-]/g, "")}`;

/** The host end of the pod's veth pair: an interface name has at most 15 characters. */
export const vethName = (uid: string) => `veth${new Bun.CryptoHasher("sha256").update(uid).digest("hex").slice(0, 11)}`;

export const HAIRPIN_MODES = ["promiscuous-bridge", "hairpin-veth", "none"] as const;
export type HairpinMode = (typeof HAIRPIN_MODES)[number];

export class PodNetworks {
  private readonly host = new IpQueue();

  /** `addresses` absent: every pod uses the host's network. */
  constructor(private readonly hostIP: string, private readonly addresses?: AddressBook, private readonly hairpin: HairpinMode = "promiscuous-bridge") {}

  /** The bridge's address, every pod's gateway; undefined when pods use the host's network. */
  get gateway(): string | undefined { return this.addresses?.gateway; }

  /** Makes the bridge (or finds it) with the range's first address; pods then get their own networks. */
  static async bridge(hostIP: string, addresses: AddressBook, hairpin: HairpinMode = "promiscuous-bridge"): Promise<PodNetworks> {
    const networks = new PodNetworks(hostIP, addresses, hairpin);
    const exists = (await ipOutput(["-o", "link", "show", "dev", BRIDGE])) !== undefined;
    await networks.host.run([[
      ...(exists ? [] : [`link add ${BRIDGE} type bridge`]),
      `addr replace ${addresses.gateway}/${addresses.prefixLength} dev ${BRIDGE}`,
      `link set ${BRIDGE} promisc ${hairpin === "promiscuous-bridge" ? "on" : "off"}`,
      `link set ${BRIDGE} up`,
    ]]);
    return networks;
  }

  /** The pod's network, made if it is not there yet; a restarted agent finds the one it made before. */
  async setUp(pod: Obj): Promise<PodNetwork> {
    if (pod.spec.hostNetwork || !this.addresses) return { ip: this.hostIP };
    const uid = pod.metadata.uid, netns = netnsName(uid), veth = vethName(uid), path = join(NETNS_DIR, netns);
    const ip = this.addresses.allocate(uid);
    if (existsSync(path)) {
      // kept whole, since processes of the pod may still be in it; a half-made one is made again
      const eth0 = await ipOutput(["-n", netns, "-4", "-o", "addr", "show", "dev", "eth0"]);
      if (eth0?.includes(` ${ip}/`)) return { ip, netns: path };
      await this.remove(netns);
    }
    try {
      // the host may still have the address's last holder in its ARP cache; hairpin (but with
      // --hairpin-mode=none): a pod's packet to a Service DNATed back to the pod itself leaves by the port it came in
      const hairpin = `link set ${veth} type bridge_slave hairpin ${this.hairpin === "none" ? "off" : "on"}`;
      const attach = [`link set ${veth} master ${BRIDGE}`, hairpin, `link set ${veth} up`, `neigh flush to ${ip} dev ${BRIDGE}`];
      await this.host.run([[`netns add ${netns}`], [`link add ${veth} type veth peer name eth0 netns ${netns}`], attach]);
      await ipBatchIn(netns, ["link set lo up", `addr add ${ip}/${this.addresses.prefixLength} dev eth0`, "link set eth0 up", `route add default via ${this.addresses.gateway}`]);
    } catch (e) {
      await this.remove(netns);
      throw e;
    }
    return { ip, netns: path };
  }

  /** Removes the pod's namespace, its veth pair with it, and frees its address (a no-op for a pod without them). */
  async tearDown(uid: string): Promise<void> {
    if (!this.addresses?.lookup(uid)) return;
    await this.remove(netnsName(uid));
    this.addresses.release(uid);
  }

  /** Tears down the networks of pods not in `keep`: those deleted while no agent ran. */
  async collect(keep: Set<string>): Promise<void> {
    for (const uid of this.addresses?.owners() ?? []) {
      if (keep.has(uid)) continue;
      await this.tearDown(uid);
      consola.info(`released the network of pod ${uid}, which no longer runs on this node`);
    }
  }

  /**
   * The kernel destroys a namespace once no process is left in it (those of a stopped pod are gone), with
   * its end of the veth pair and so the pair: for many pods at once, far cheaper than deleting each veth,
   * which holds the kernel's network lock for an RCU grace period per pair.
   */
  private async remove(netns: string): Promise<void> {
    await this.host.run([[`netns del ${netns}`]]).catch((e: Error) => {
      // it may be gone already
      if (!e.message.includes("No such file")) consola.warn(`failed to remove network namespace ${netns}: ${e.message}`);
    });
  }
}
