// What the proxy routes, read from Services and their Endpoints as upstream's kube-proxy reads them: one
// entry per port of each Service with a cluster IP (headless ones and ExternalName have none), its ready
// endpoints those addresses of the Endpoints' subsets whose port has the Service port's name.
import type { Obj } from "../node.ts";

export type Protocol = "tcp" | "udp" | "sctp";

export interface Backend { ip: string; port: number }

export interface ServicePort {
  /** namespace/name:portName, as upstream's ServicePortName prints it. */
  name: string;
  /** namespace/name: the Service. */
  service: string;
  clusterIP: string;
  port: number;
  /** 0 when the Service has no node port for this port. */
  nodePort: number;
  protocol: Protocol;
  /** sessionAffinity ClientIP's timeout in seconds, or 0 for no affinity. */
  affinitySeconds: number;
  backends: Backend[];
}

/** Upstream's default for sessionAffinityConfig.clientIP.timeoutSeconds: 3 hours. */
const DEFAULT_AFFINITY_SECONDS = 10800;

const hasClusterIP = (svc: Obj) => {
  const ip = svc.spec?.clusterIP;
  return typeof ip === "string" && ip !== "" && ip !== "None" && ip.includes(".") && svc.spec?.type !== "ExternalName";
};

/** The ready backends of the Endpoints for the port named `portName`. */
function backendsOf(endpoints: Obj | undefined, portName: string, protocol: string): Backend[] {
  const out: Backend[] = [];
  for (const subset of endpoints?.subsets ?? []) {
    const port = (subset.ports ?? []).find((p: Obj) => (p.name ?? "") === portName && (p.protocol ?? "TCP") === protocol);
    if (!port) continue;
    for (const a of subset.addresses ?? []) out.push({ ip: a.ip, port: port.port });
  }
  // a stable order, so that an unchanged set of endpoints renders the same rules
  return out.sort((a, b) => `${a.ip}:${a.port}`.localeCompare(`${b.ip}:${b.port}`));
}

/** Every routed port of `services`; `endpointsOf` gives a Service's Endpoints (same namespace and name). */
export function servicePorts(services: Obj[], endpointsOf: (key: string) => Obj | undefined): ServicePort[] {
  const out: ServicePort[] = [];
  for (const svc of services) {
    if (!hasClusterIP(svc)) continue;
    const service = `${svc.metadata.namespace}/${svc.metadata.name}`;
    const affinitySeconds = svc.spec.sessionAffinity === "ClientIP" ? svc.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_SECONDS : 0;
    for (const p of svc.spec.ports ?? []) {
      const protocol = (p.protocol ?? "TCP") as string;
      out.push({
        name: `${service}:${p.name ?? ""}`, service, clusterIP: svc.spec.clusterIP, port: p.port,
        nodePort: svc.spec.type === "NodePort" || svc.spec.type === "LoadBalancer" ? p.nodePort ?? 0 : 0,
        protocol: protocol.toLowerCase() as Protocol, affinitySeconds,
        backends: backendsOf(endpointsOf(service), p.name ?? "", protocol),
      });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
