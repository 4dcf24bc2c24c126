// Cluster DNS as an API client: informers on Services, Endpoints and Namespaces feed ClusterRecords,
// and a DNSServer answers from them once the caches have synced. `kite up` and the node agent run it.
import { readFileSync } from "node:fs";
import type { Client } from "../client/client.ts";
import { dropManagedFields, InformerFactory } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { parseUpstream } from "./forward.ts";
import { ClusterRecords, DEFAULT_TTL } from "./records.ts";
import { parseResolvConf } from "./resolvconf.ts";
import { DNSServer } from "./server.ts";

export interface ClusterDNSOptions {
  /** host:port to serve on, UDP and TCP ("127.0.0.1:0" picks a port). */
  listen: string;
  /** The cluster domain, e.g. cluster.local. */
  domain: string;
  /** Where other names go ("ip" or "ip:port"); the nameservers of /etc/resolv.conf when unset. */
  upstreams?: string[];
  ttl?: number;
}

export interface ClusterDNS {
  /** The port bound (UDP and TCP). */
  port: number;
  /** Resolves once the server has stopped (after the signal aborts). */
  done: Promise<void>;
}

/** The nameservers of a resolv.conf file (the host's resolvers). */
export function hostUpstreams(path = "/etc/resolv.conf"): string[] {
  try { return parseResolvConf(readFileSync(path, "utf8")).nameservers; } catch { return []; }
}

export async function runClusterDNS(client: Client, o: ClusterDNSOptions, signal: AbortSignal): Promise<ClusterDNS> {
  const factory = new InformerFactory(client, { transform: dropManagedFields });
  const informers = [RESOURCES.services, RESOURCES.endpoints, RESOURCES.namespaces].map((r) => factory.informerFor(r));
  const [services, endpoints, namespaces] = informers;
  const records = new ClusterRecords({ services: services.store, endpoints: endpoints.store, namespaces: namespaces.store }, o.domain, o.ttl ?? DEFAULT_TTL);
  const touch = () => records.touch();
  for (const inf of informers) inf.addEventHandler({ add: touch, update: touch, delete: touch });
  factory.start();
  const stop = () => factory.stop();
  signal.addEventListener("abort", stop, { once: true });
  if (!(await factory.waitForCacheSync(signal))) {
    stop();
    throw new Error("cluster DNS: caches did not sync");
  }
  const { host, port } = parseUpstream(o.listen);
  const server = new DNSServer({ host, port, records, upstreams: (o.upstreams ?? hostUpstreams()).map(parseUpstream) });
  let bound: number;
  try { bound = await server.start(); } catch (e) {
    server.stop();
    stop();
    throw new Error(`cluster DNS: cannot listen on ${o.listen}: ${(e as Error).message}`);
  }
  const done = new Promise<void>((resolve) => {
    const end = () => { server.stop(); resolve(); };
    if (signal.aborted) end();
    else signal.addEventListener("abort", end, { once: true });
  });
  return { port: bound, done };
}
