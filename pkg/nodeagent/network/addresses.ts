// The pod addresses of this node's range, kept on disk under --root-dir as CNI's host-local IPAM keeps
// them: one file per address in use, named by the address and holding its pod's uid. A restarted agent
// reads them back, so it hands out no address in use and finds each pod's own again. The lowest free
// address is handed out, so a released one is reused by the next pod.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { intToIp, ipToInt } from "../../util/ipv4.ts";

export interface Range { base: number; size: number }

export class AddressBook {
  private readonly byUid = new Map<string, string>();
  private readonly used = new Set<number>();

  constructor(private readonly dir: string, private readonly range: Range) {
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(dir)) {
      const n = ipToInt(f);
      if (n === undefined) continue;
      this.used.add(n);
      this.byUid.set(readFileSync(join(dir, f), "utf8").trim(), f);
    }
  }

  /** The range's first address: the bridge's, every pod's default gateway. */
  get gateway(): string { return intToIp(this.range.base + 1); }

  get prefixLength(): number { return 32 - Math.log2(this.range.size); }

  /** The address of the pod with this uid, if it has one. */
  lookup(uid: string): string | undefined { return this.byUid.get(uid); }

  /** The pods holding an address. */
  owners(): string[] { return [...this.byUid.keys()]; }

  /** The pod's address: the one it holds, else the lowest free one (network, gateway and broadcast excluded). */
  allocate(uid: string): string {
    const held = this.byUid.get(uid);
    if (held) return held;
    const { base, size } = this.range;
    for (let n = base + 2; n < base + size - 1; n++) {
      if (this.used.has(n)) continue;
      const ip = intToIp(n);
      writeFileSync(join(this.dir, ip), uid, { flag: "wx" });
      this.used.add(n);
      this.byUid.set(uid, ip);
      return ip;
    }
    // host-local's words
    throw new Error(`no IP addresses available in range set: ${intToIp(base + 2)}-${intToIp(base + size - 2)}`);
  }

  release(uid: string): void {
    const ip = this.byUid.get(uid);
    if (!ip) return;
    rmSync(join(this.dir, ip), { force: true });
    this.used.delete(ipToInt(ip)!);
    this.byUid.delete(uid);
  }
}
