// Where a pod's log is, as upstream's LogLocation finds it: the container (named, or the pod's only one),
// the node the pod is bound to, that node's address by --kubelet-preferred-address-types and its agent's
// port (status.daemonEndpoints.kubeletEndpoint.Port), and the /containerLogs path with the options; exec's
// and attach's the same way.
import { type PodLogOptions, agentLogQuery } from "../api/podlogoptions.ts";
import { StatusError, badRequest } from "../api/status.ts";
import type { ResourceStore } from "./generic.ts";
import type { Obj } from "./types.ts";

/** Upstream's default --kubelet-preferred-address-types, and the port of an agent that reports none. */
export const DEFAULT_ADDRESS_TYPES = ["Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"];
export const DEFAULT_KUBELET_PORT = 10250;

const names = (cs: Obj[] | undefined) => (cs ?? []).map((c) => c.name).join(" ");

/** upstream's validateContainer: the container to read, or a 400 saying which may be named. */
export function logContainer(pod: Obj, container: string | undefined): string {
  const spec = pod.spec ?? {};
  if (container) {
    const all = [...(spec.containers ?? []), ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])];
    if (!all.some((c: Obj) => c.name === container)) throw badRequest(`container ${container} is not valid for pod ${pod.metadata.name}`);
    return container;
  }
  const containers: Obj[] = spec.containers ?? [];
  if (containers.length === 1) return containers[0].name;
  if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${pod.metadata.name}`);
  let msg = `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names(containers)}]`;
  if (spec.initContainers?.length) msg += ` or one of the init containers: [${names(spec.initContainers)}]`;
  throw badRequest(msg);
}

/** The node's address of the first preferred type it has (upstream's GetPreferredNodeAddress). */
export function preferredAddress(node: Obj, types: string[]): string {
  const addresses: Obj[] = node.status?.addresses ?? [];
  for (const t of types) {
    const a = addresses.find((x) => x.type === t);
    if (a) return a.address;
  }
  // a plain error upstream: a 500 without a reason
  throw new StatusError(500, "", `no preferred addresses found; known addresses: [${addresses.map((a) => `{${a.type} ${a.address}}`).join(" ")}]`);
}

/** The agent URL of a pod's log; undefined for a pod not bound to a node yet (upstream answers it empty). */
export async function podLogLocation(pods: ResourceStore, nodes: ResourceStore, ns: string, name: string, o: PodLogOptions, addressTypes: string[]): Promise<string | undefined> {
  const pod = await pods.get(ns, name);
  const container = logContainer(pod, o.container);
  const nodeName: string = pod.spec?.nodeName ?? "";
  if (!nodeName) return undefined;
  const query = agentLogQuery(o);
  const path = [ns, name, container].map(encodeURIComponent).join("/");
  return agentURL(await nodes.get("", nodeName), addressTypes, `/containerLogs/${path}${query ? `?${query}` : ""}`);
}

/** A path on a node's agent: its preferred address and the port it reports. */
export function agentURL(node: Obj, addressTypes: string[], path: string): string {
  const host = preferredAddress(node, addressTypes);
  const reported = Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0);
  const port = reported > 0 ? reported : DEFAULT_KUBELET_PORT;
  return `https://${host.includes(":") ? `[${host}]` : host}:${port}${path}`;
}

/**
 * Where exec and attach go (upstream's streamLocation): the container (as for logs) on the pod's node,
 * the agent's /exec or /attach path with the streams asked for.
 */
export async function podStreamLocation(pods: ResourceStore, nodes: ResourceStore, ns: string, name: string, kind: "exec" | "attach", q: URLSearchParams, addressTypes: string[]): Promise<string> {
  const pod = await pods.get(ns, name);
  const container = logContainer(pod, q.get("container") || undefined);
  const nodeName: string = pod.spec?.nodeName ?? "";
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const agentQuery = new URLSearchParams();
  for (const c of q.getAll("command")) agentQuery.append("command", c);
  for (const [ours, theirs] of [["stdin", "input"], ["stdout", "output"], ["stderr", "error"], ["tty", "tty"]]) {
    if (["1", "true"].includes(q.get(ours) ?? "")) agentQuery.set(theirs, "1");
  }
  const path = [ns, name, container].map(encodeURIComponent).join("/");
  return agentURL(await nodes.get("", nodeName), addressTypes, `/${kind}/${path}?${agentQuery}`);
}

/** The agent's /portForward/{ns}/{pod} for the pod (upstream's PortForwardLocation). */
export async function podPortForwardLocation(pods: ResourceStore, nodes: ResourceStore, ns: string, name: string, addressTypes: string[]): Promise<string> {
  const pod = await pods.get(ns, name);
  const nodeName: string = pod.spec?.nodeName ?? "";
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  return agentURL(await nodes.get("", nodeName), addressTypes, `/portForward/${[ns, name].map(encodeURIComponent).join("/")}`);
}
