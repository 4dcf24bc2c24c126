// Which network this agent's pods get, decided once at its start: their own (a namespace each on the
// bridge, addresses from the pod range) where the agent may make namespaces, else the host's, which is
// said once in the log and in the Node's Ready condition message.
import { join } from "node:path";
import { consola } from "consola";
import { parseIPv4Range } from "../../util/ipv4.ts";
import type { Obj } from "../node.ts";
import type { NodeAgentOptions } from "../options.ts";
import { AddressBook } from "./addresses.ts";
import { BRIDGE, PodNetworks } from "./podnetworks.ts";

/**
 * The pod range when neither the Node's spec.podCIDR nor --pod-cidr gives one: the first /24 of
 * 10.244.0.0/16, the cluster range kubeadm's guides and flannel use, cut as the node IPAM controller cuts
 * it (--node-cidr-mask-size 24): 253 pod addresses, more than the default --max-pods 110.
 */
export const DEFAULT_POD_CIDR = "10.244.0.0/24";

/** Why pods cannot get their own network here, or undefined when they can. */
export function hostNetworkReason(): string | undefined {
  if (process.platform !== "linux") return `network namespaces need Linux, not ${process.platform}`;
  if (process.getuid?.() !== 0) return "making network namespaces needs root";
  if (!Bun.which("ip")) return `iproute2's "ip" is not in $PATH`;
  if (!Bun.which("nsenter")) return `util-linux's "nsenter" is not in $PATH`;
  return undefined;
}

/** The pod range: the Node's (as upstream's kubelet, its IPv4 one), else --pod-cidr, else the default. */
export function podCIDR(node: Obj | undefined, flag: string | undefined): { cidr: string; from: string } {
  const fromNode = [...(node?.spec?.podCIDRs ?? []), node?.spec?.podCIDR].find((c) => typeof c === "string" && c.includes("."));
  if (fromNode) return { cidr: fromNode, from: "the Node's spec.podCIDR" };
  if (flag) return { cidr: flag, from: "--pod-cidr" };
  return { cidr: DEFAULT_POD_CIDR, from: "the default" };
}

/** Pods' networks for this agent; `say` is told, once, when pods fall back to the host's network. */
export async function startPodNetworks(o: NodeAgentOptions, node: Obj | undefined, hostIP: string, say: (message: string) => void): Promise<PodNetworks> {
  if (o.podNetwork === "host") {
    consola.info("pods use the host's network (--pod-network=host)");
    return new PodNetworks(hostIP);
  }
  const fallBack = (why: string) => {
    const message = `pods use the host's network: ${why}`;
    consola.warn(message);
    say(message);
    return new PodNetworks(hostIP);
  };
  const why = hostNetworkReason();
  if (why) return fallBack(why);
  const { cidr, from } = podCIDR(node, o.podCIDR);
  let addresses: AddressBook;
  try {
    addresses = new AddressBook(join(o.rootDir, "network", "addresses"), parseIPv4Range(cidr));
  } catch (e) {
    return fallBack(`pod range ${cidr} from ${from}: ${(e as Error).message}`);
  }
  try {
    const networks = await PodNetworks.bridge(hostIP, addresses, o.hairpinMode);
    consola.info(`pods get their own network namespaces on bridge ${BRIDGE}, addresses from ${cidr} (${from})`);
    return networks;
  } catch (e) {
    return fallBack(`making bridge ${BRIDGE} failed: ${(e as Error).message}`);
  }
}
