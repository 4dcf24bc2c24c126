// Where the userspace proxy may listen on Services' cluster IPs: as root on Linux it adds each cluster IP
// to the loopback device under label lo:kite (as upstream's IPVS proxier puts them on kube-ipvs0; the
// label finds Kite's among the device's addresses), which makes the address local, so a socket can be
// bound to it and packets to it from the node and its pods are delivered here. Unprivileged no address
// can be added and no cluster IP bound.

export const LABEL = "lo:kite";

async function ip(args: string[]): Promise<string> {
  const p = Bun.spawn(["ip", ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`ip ${args.join(" ")}: ${err.trim() || `exit status ${code}`}`);
  return out;
}

/** Why cluster IPs cannot be bound here, or undefined when they can. */
export function clusterIPsUnavailable(): string | undefined {
  if (process.platform !== "linux") return `binding cluster IPs needs Linux, not ${process.platform}`;
  if (process.getuid?.() !== 0) return "adding cluster IPs to the loopback device needs root";
  if (!Bun.which("ip")) return `"ip" is not in $PATH`;
  return undefined;
}

/** The cluster IPs on the loopback device now. */
async function present(): Promise<string[]> {
  const out = await ip(["-j", "-4", "addr", "show", "dev", "lo", "label", LABEL]);
  return (JSON.parse(out) as { addr_info?: { local?: string }[] }[]).flatMap((l) => (l.addr_info ?? []).flatMap((a) => (a.local ? [a.local] : [])));
}

/** Makes the loopback device hold exactly `ips` under Kite's label. */
export async function syncClusterIPs(ips: Iterable<string>): Promise<void> {
  const want = new Set(ips);
  const have = await present();
  for (const a of have) if (!want.has(a)) await ip(["addr", "del", `${a}/32`, "dev", "lo"]);
  for (const a of want) if (!have.includes(a)) await ip(["addr", "add", `${a}/32`, "dev", "lo", "label", LABEL]);
}

/** Removes every cluster IP Kite added. */
export const removeClusterIPs = () => syncClusterIPs([]).catch(() => undefined);
