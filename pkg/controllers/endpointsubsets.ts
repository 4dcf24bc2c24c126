// Endpoints' subsets in their canonical form (upstream's endpoints.RepackSubsets): an address (by IP and
// target uid) is ready for a port if any subset says so; ports reaching the same addresses, equally ready,
// share one subset; addresses, ports and subsets are sorted, so equal endpoints compare equal.
import type { Obj } from "../client/client.ts";

export interface EndpointAddress { ip: string; hostname?: string; nodeName?: string; targetRef?: Obj }
export interface EndpointPort { name?: string; port: number; protocol: string; appProtocol?: string }
export interface EndpointSubset { addresses?: EndpointAddress[]; notReadyAddresses?: EndpointAddress[]; ports?: EndpointPort[] }

const addressKey = (a: EndpointAddress) => `${a.ip}/${a.targetRef?.uid ?? ""}`;
const portKey = (p: EndpointPort) => JSON.stringify([p.name ?? "", p.port, p.protocol, p.appProtocol ?? ""]);
const byKey = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

export function repackSubsets(subsets: EndpointSubset[]): EndpointSubset[] {
  const addresses = new Map<string, EndpointAddress>();
  // port (or "" for a subset without ports) → address key → ready
  const byPort = new Map<string, { port?: EndpointPort; ready: Map<string, boolean> }>();
  for (const ss of subsets) {
    const ports: (EndpointPort | undefined)[] = ss.ports?.length ? ss.ports : [undefined];
    for (const port of ports) {
      const pk = port ? portKey(port) : "";
      let entry = byPort.get(pk);
      if (!entry) byPort.set(pk, (entry = { port, ready: new Map() }));
      for (const [list, ready] of [[ss.addresses, true], [ss.notReadyAddresses, false]] as const) {
        for (const a of list ?? []) {
          const ak = addressKey(a);
          if (!addresses.has(ak)) addresses.set(ak, a);
          if (!entry.ready.get(ak)) entry.ready.set(ak, ready);
        }
      }
    }
  }
  // Ports whose addresses (and their readiness) are the same become one subset.
  const groups = new Map<string, { ports: EndpointPort[]; ready: Map<string, boolean> }>();
  for (const { port, ready } of byPort.values()) {
    const gk = [...ready].map(([k, r]) => `${k}=${r}`).sort().join(",");
    let g = groups.get(gk);
    if (!g) groups.set(gk, (g = { ports: [], ready }));
    if (port) g.ports.push(port);
  }
  const out: { key: string; subset: EndpointSubset }[] = [];
  for (const [key, g] of groups) {
    const subset: EndpointSubset = {};
    const ready = [...g.ready].filter(([, r]) => r).map(([k]) => addresses.get(k)!).sort(byKey(addressKey));
    const notReady = [...g.ready].filter(([, r]) => !r).map(([k]) => addresses.get(k)!).sort(byKey(addressKey));
    if (ready.length) subset.addresses = ready;
    if (notReady.length) subset.notReadyAddresses = notReady;
    if (g.ports.length) subset.ports = g.ports.sort(byKey(portKey));
    out.push({ key, subset });
  }
  return out.sort(byKey((x) => x.key)).map((x) => x.subset);
}
