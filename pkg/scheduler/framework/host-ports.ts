// Host ports in use on a node, by IP and "protocol/port" (upstream's HostPortInfo). 0.0.0.0 is every
// IP: it conflicts with the same port on any address.

export const ALL_IPS = "0.0.0.0";

const portKey = (protocol: string | undefined, port: number) => `${protocol || "TCP"}/${port}`;

export class HostPortInfo {
  /** Made at the first port: most nodes (and the snapshot's copies of them) never have one. */
  private byIP: Map<string, Map<string, number>> | null = null;

  add(ip: string | undefined, protocol: string | undefined, port: number): void {
    if (!port) return;
    const key = portKey(protocol, port);
    const ipKey = ip || ALL_IPS;
    const byIP = (this.byIP ??= new Map());
    let ports = byIP.get(ipKey);
    if (!ports) byIP.set(ipKey, (ports = new Map()));
    ports.set(key, (ports.get(key) ?? 0) + 1);
  }

  remove(ip: string | undefined, protocol: string | undefined, port: number): void {
    if (!port) return;
    const key = portKey(protocol, port);
    const ipKey = ip || ALL_IPS;
    const ports = this.byIP?.get(ipKey);
    const n = ports?.get(key);
    if (!ports || n === undefined) return;
    if (n > 1) ports.set(key, n - 1);
    else {
      ports.delete(key);
      if (ports.size === 0) this.byIP!.delete(ipKey);
    }
  }

  /** True when the port would clash with one in use. */
  conflicts(ip: string | undefined, protocol: string | undefined, port: number): boolean {
    if (!port || !this.byIP) return false;
    const key = portKey(protocol, port);
    const ipKey = ip || ALL_IPS;
    if (ipKey === ALL_IPS) {
      for (const ports of this.byIP.values()) if (ports.has(key)) return true;
      return false;
    }
    return !!this.byIP.get(ipKey)?.has(key) || !!this.byIP.get(ALL_IPS)?.has(key);
  }

  get size(): number {
    let n = 0;
    for (const ports of this.byIP?.values() ?? []) n += ports.size;
    return n;
  }

  clone(): HostPortInfo {
    const c = new HostPortInfo();
    if (this.byIP) c.byIP = new Map([...this.byIP].map(([ip, ports]) => [ip, new Map(ports)]));
    return c;
  }
}
