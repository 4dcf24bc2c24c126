// The cluster DNS inside `kite up`: a client of the API as CoreDNS is in a kubeadm cluster — the
// ServiceAccount kube-system/coredns (here a client certificate of the cluster CA for its user name) bound
// to the ClusterRole system:coredns that kubeadm's CoreDNS addon creates. The bootstrap system:kube-dns
// grants services and endpoints only; this server also watches namespaces (a name in a missing
// namespace does not exist).
import { consola } from "consola";
import { isAlreadyExists } from "../client/client.ts";
import { RESOURCES } from "../client/resources.ts";
import { embeddedClient, type EmbeddedTarget } from "../client/embedded.ts";
import { intToIp, parseIPv4Range } from "../util/ipv4.ts";
import { hostUpstreams, runClusterDNS } from "./run.ts";

export const CLUSTER_DOMAIN = "cluster.local";
/** The port resolv.conf's nameservers are asked on: it has no way to name another. */
export const DNS_PORT = 53;
/** The user name and groups of kube-system/coredns, for its certificate. */
export const DNS_USER = "system:serviceaccount:kube-system:coredns";
export const DNS_GROUPS = ["system:serviceaccounts", "system:serviceaccounts:kube-system"];

const RBAC = "rbac.authorization.k8s.io";
const LABELS = { "kubernetes.io/bootstrapping": "rbac-defaults" };
/** kubeadm's (v1.21) CoreDNS addon's role and binding. */
const ACCESS = [
  [RESOURCES.clusterroles, {
    apiVersion: `${RBAC}/v1`, kind: "ClusterRole", metadata: { name: "system:coredns", labels: LABELS },
    rules: [
      { apiGroups: [""], resources: ["endpoints", "services", "pods", "namespaces"], verbs: ["list", "watch"] },
      { apiGroups: [""], resources: ["nodes"], verbs: ["get"] },
      { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
    ],
  }],
  [RESOURCES.clusterrolebindings, {
    apiVersion: `${RBAC}/v1`, kind: "ClusterRoleBinding",
    metadata: { name: "system:coredns", labels: LABELS, annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" } },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "system:coredns" },
    subjects: [{ kind: "ServiceAccount", name: "coredns", namespace: "kube-system" }],
  }],
] as const;


/** Creates the role and binding where they are missing (a user's edits to them are kept). */
export async function ensureDNSAccess(admin: EmbeddedTarget): Promise<void> {
  const client = embeddedClient(admin);
  for (const [r, obj] of ACCESS) await client.create(r, structuredClone(obj) as never).catch((e) => { if (!isAlreadyExists(e)) throw e; });
}

/** The pod range's gateway (its first address): the bridge's, which every pod of the node reaches. */
export const gatewayOf = (podCIDR: string) => intToIp(parseIPv4Range(podCIDR).base + 1);

/**
 * Serves cluster DNS on ip:53 as `target` until `signal` aborts; resolves once it listens (`done`: its
 * end), or to undefined (said in the log) when it cannot. Other names go to the host's resolvers, but
 * never to ip itself: a host whose resolver is this address would loop.
 */
export async function startEmbeddedClusterDNS(target: EmbeddedTarget, ip: string, signal: AbortSignal): Promise<{ done: Promise<void> } | undefined> {
  try {
    const upstreams = hostUpstreams().filter((u) => u !== ip && u !== `${ip}:${DNS_PORT}`);
    const dns = await runClusterDNS(embeddedClient(target), { listen: `${ip}:${DNS_PORT}`, domain: CLUSTER_DOMAIN, upstreams }, signal);
    consola.info(`cluster DNS for ${CLUSTER_DOMAIN} on ${ip}:${DNS_PORT}, other names to ${upstreams.join(", ") || "nowhere"}`);
    return { done: dns.done };
  } catch (e) {
    if (!signal.aborted) consola.warn(`${(e as Error).message}: pods get the node's resolvers`);
    return undefined;
  }
}
