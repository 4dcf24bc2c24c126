// The `kubernetes` Service in `default` (the first address of --service-cluster-ip-range, port 443 named
// https to the secure port) and its Endpoints (the API server's advertise address and port), kept as
// upstream's bootstrap controller keeps them: made at start, put back when deleted, their ports (and the
// endpoints' addresses) reset when changed.
import { consola } from "consola";
import { firstServiceIP } from "../../registry/allocators.ts";
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import { type Runner, current, settled } from "./informer.ts";

export const KUBERNETES = "kubernetes";
const NS = "default";
const MANAGER = "kube-apiserver";

/**
 * Upstream refuses a loopback address in Endpoints (its reconciler then only logs); Kite's default is a
 * loopback server whose service proxy dials endpoints from the host, so its own Endpoints may name one.
 */
const OWN_ENDPOINTS = { fieldManager: MANAGER, serverOwned: true };

export interface Endpoint {
  clusterIPRange: string;
  advertiseAddress: string;
  port: number;
  /** --kubernetes-service-node-port: a NodePort Service on this port when not 0. */
  nodePort?: number;
}

const servicePorts = (e: Endpoint) => [{ name: "https", protocol: "TCP", port: 443, targetPort: e.port, ...(e.nodePort ? { nodePort: e.nodePort } : {}) }];
const serviceType = (e: Endpoint) => (e.nodePort ? "NodePort" : "ClusterIP");

/** The servers' addresses, one subset per port (servers behind different ports are rare, but allowed). */
function subsets(servers: { ip: string; port: number }[]) {
  const ports = [...new Set(servers.map((s) => s.port))];
  return ports.map((port) => ({ addresses: servers.filter((s) => s.port === port).map((s) => ({ ip: s.ip })), ports: [{ name: "https", port, protocol: "TCP" }] }));
}

/** Does the stored port list say what the bootstrap one says (defaults the stored one may carry aside)? */
function samePorts(stored: Obj[] | undefined, want: Obj[]): boolean {
  if (!stored || stored.length !== want.length) return false;
  return want.every((w, i) => Object.entries(w).every(([k, v]) => stored[i][k] === v));
}

export async function ensureService(registry: Registry, e: Endpoint): Promise<void> {
  const rs = registry.lookup("", "v1", "services")!;
  const ports = servicePorts(e), type = serviceType(e);
  const svc = await current(rs, NS, KUBERNETES);
  if (!svc) {
    const ip = firstServiceIP(e.clusterIPRange);
    const body = {
      metadata: { name: KUBERNETES, labels: { component: "apiserver", provider: "kubernetes" } },
      spec: { type, clusterIP: ip, clusterIPs: [ip], ports, sessionAffinity: "None" },
    };
    await rs.create(NS, body, { fieldManager: MANAGER }).catch((err) => {
      if (err.code === 409) return; // another server made it
      // The address is another Service's (a cluster from before this was kept): said once, not retried.
      if (err.code === 422) return consola.warn(`the kubernetes Service cannot be made: ${err.message}`);
      throw err;
    });
    return;
  }
  if (svc.spec?.type === type && samePorts(svc.spec?.ports, ports)) return;
  await rs.guaranteedUpdate(NS, KUBERNETES, (cur) => ({ ...cur, spec: { ...cur.spec, type, ports } }), { fieldManager: MANAGER });
}

/** The Endpoints list `servers` (endpoint-leases.ts says which are live); none listed, none kept. */
export async function ensureEndpoints(registry: Registry, servers: { ip: string; port: number }[]): Promise<void> {
  if (!servers.length) return;
  const rs = registry.lookup("", "v1", "endpoints")!;
  const want = subsets(servers);
  const ep = await current(rs, NS, KUBERNETES);
  if (!ep) {
    const body = { metadata: { name: KUBERNETES, labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } }, subsets: want };
    await rs.create(NS, body, OWN_ENDPOINTS).catch((err) => { if (!settled(err)) throw err; });
    return;
  }
  if (Bun.deepEquals(ep.subsets, want)) return;
  await rs.guaranteedUpdate(NS, KUBERNETES, (cur) => ({ ...cur, subsets: want }), OWN_ENDPOINTS);
}

/** A deleted or changed `kubernetes` Service or Endpoints in `default` is put back. */
export function watchKubernetes(runner: Runner, key: "service" | "endpoints") {
  return (type: string, obj: Obj) => {
    if (type !== "ADDED" && obj.metadata.name === KUBERNETES) runner.run(key);
  };
}
