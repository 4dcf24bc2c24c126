// Where pods/proxy, services/proxy and nodes/proxy go (upstream's ResourceLocation of each): the name part
// of the path is `[scheme:]name[:port]`; a pod's address and port, a ready endpoint address of a Service
// (picked at random among the subsets that carry the port), or a node's agent.
import { badRequest, serviceUnavailable } from "../api/status.ts";
import type { ResourceStore } from "./generic.ts";
import { agentURL } from "./podlog.ts";
import type { Obj } from "./types.ts";

export interface ProxyTarget {
  /** scheme://host:port, without a path. */
  origin: string;
  /** The upstream is a node agent's own port: reached with the kubelet client credentials. */
  agent: boolean;
}

/** upstream's SplitSchemeNamePort: `name`, `name:port`, or `scheme:name:port` with scheme http or https. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(":");
  let scheme = "", name: string, port = "";
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return undefined;
  if (!name || (scheme && scheme !== "http" && scheme !== "https")) return undefined;
  return { scheme, name, port };
}

const hostPort = (ip: string, port: string | number) => `${ip.includes(":") ? `[${ip}]` : ip}${port === "" ? "" : `:${port}`}`;
const random = (n: number) => Math.floor(Math.random() * n);

export async function podProxyTarget(pods: ResourceStore, ns: string, id: string): Promise<ProxyTarget> {
  const p = splitSchemeNamePort(id);
  if (!p) throw badRequest(`invalid pod request ${JSON.stringify(id)}`);
  const pod = await pods.get(ns, p.name);
  let port = p.port;
  // no port named: the first declared container port
  if (!port) port = String((pod.spec?.containers ?? []).flatMap((c: Obj) => c.ports ?? [])[0]?.containerPort ?? "");
  const ip: string = pod.status?.podIP ?? "";
  // upstream's IsProxyableIP, but for loopback: Kite's pods on the host network have the node's 127.0.0.1
  if (!ip || /^(169\.254\.|fe80:)/i.test(ip)) throw badRequest("address not allowed");
  return { origin: `${p.scheme || "http"}://${hostPort(ip, port)}`, agent: false };
}

export async function serviceProxyTarget(services: ResourceStore, endpoints: ResourceStore, ns: string, id: string): Promise<ProxyTarget> {
  const p = splitSchemeNamePort(id);
  if (!p) throw badRequest(`invalid service request ${JSON.stringify(id)}`);
  let portName = p.port;
  // a port number names the Service port declaring it
  if (/^\d+$/.test(portName)) {
    const svc = await services.get(ns, p.name);
    const declared = (svc.spec?.ports ?? []).find((x: Obj) => Number(x.port) === Number(portName));
    if (!declared) throw serviceUnavailable(`no service port ${Number(portName)} found for service ${JSON.stringify(p.name)}`);
    portName = declared.name ?? "";
  }
  const eps = await endpoints.get(ns, p.name);
  const subsets: Obj[] = eps.subsets ?? [];
  const start = random(subsets.length || 1);
  for (let i = 0; i < subsets.length; i++) {
    const ss = subsets[(start + i) % subsets.length];
    const addresses: Obj[] = ss.addresses ?? [];
    const port = (ss.ports ?? []).find((x: Obj) => (x.name ?? "") === portName);
    if (!addresses.length || !port) continue;
    const a = addresses[random(addresses.length)];
    return { origin: `${p.scheme || "http"}://${hostPort(a.ip, port.port)}`, agent: false };
  }
  throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(p.name)}`);
}

export async function nodeProxyTarget(nodes: ResourceStore, id: string, addressTypes: string[]): Promise<ProxyTarget> {
  const p = splitSchemeNamePort(id);
  if (!p) throw badRequest(`invalid node request ${JSON.stringify(id)}`);
  const agent = new URL(agentURL(await nodes.get("", p.name), addressTypes, "/"));
  // the agent's own port (or none named) is the agent, with its credentials; another port is plain proxying
  if (!p.port || p.port === agent.port) return { origin: agent.origin, agent: true };
  return { origin: `${p.scheme || "http"}://${agent.hostname}:${p.port}`, agent: false };
}
