// The Docker-link style variables upstream's kubelet gives every container for the services of its
// namespace (when spec.enableServiceLinks, the default) and always for default/kubernetes:
// {SVC}_SERVICE_HOST, {SVC}_SERVICE_PORT[_{PORT}], {SVC}_PORT, {SVC}_PORT_{n}_{PROTO}[_PROTO|_PORT|_ADDR].
import type { Obj } from "./node.ts";

const MASTER_NAMESPACE = "default";
const MASTER_SERVICE = "kubernetes";

const envName = (s: string) => s.replaceAll("-", "_").toUpperCase();
const hasClusterIP = (svc: Obj) => !!svc.spec?.clusterIP && svc.spec.clusterIP !== "None";
const hostPort = (ip: string, port: number) => (ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`);

function serviceVars(svc: Obj, into: Map<string, string>): void {
  const prefix = envName(svc.metadata.name), ip = svc.spec.clusterIP, ports: Obj[] = svc.spec.ports ?? [];
  into.set(`${prefix}_SERVICE_HOST`, ip);
  if (ports.length) into.set(`${prefix}_SERVICE_PORT`, String(ports[0].port));
  for (const p of ports) if (p.name) into.set(`${prefix}_SERVICE_PORT_${envName(p.name)}`, String(p.port));
  ports.forEach((p, i) => {
    const proto = String(p.protocol || "TCP"), url = `${proto.toLowerCase()}://${hostPort(ip, p.port)}`;
    if (i === 0) into.set(`${prefix}_PORT`, url);
    const portPrefix = `${prefix}_PORT_${p.port}_${proto.toUpperCase()}`;
    into.set(portPrefix, url);
    into.set(`${portPrefix}_PROTO`, proto.toLowerCase());
    into.set(`${portPrefix}_PORT`, String(p.port));
    into.set(`${portPrefix}_ADDR`, ip);
  });
}

/** The service variables of a pod in `namespace`, from `services` (its namespace's and the master's). */
export function serviceEnv(services: Obj[], namespace: string, enableServiceLinks: boolean): Map<string, string> {
  const chosen = new Map<string, Obj>();
  for (const svc of services) {
    if (!hasClusterIP(svc)) continue;
    const { name, namespace: ns } = svc.metadata;
    if (ns === MASTER_NAMESPACE && name === MASTER_SERVICE) { if (!chosen.has(name)) chosen.set(name, svc); }
    else if (ns === namespace && enableServiceLinks) chosen.set(name, svc);
  }
  const out = new Map<string, string>();
  for (const name of [...chosen.keys()].sort()) serviceVars(chosen.get(name)!, out);
  return out;
}
