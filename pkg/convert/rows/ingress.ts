// Ingress at extensions/v1beta1 and networking.k8s.io/v1beta1, to and from networking.k8s.io/v1: `backend`
// became `defaultBackend`, a backend's serviceName/servicePort became service.name and service.port.number
// or .name, and a path's pathType, which v1beta1 defaulted to ImplementationSpecific, is required.
import type { Obj } from "../../registry/types.ts";
import type { VersionRow } from "../table.ts";
import { type Convert, renameKey, row } from "./util.ts";
import { isMap } from "../../util/ismap.ts";

const HUB = { group: "networking.k8s.io", version: "v1" };

function backendToHub(b: unknown): unknown {
  if (!isMap(b)) return b;
  const { serviceName, servicePort, ...rest } = b;
  if (serviceName === undefined && servicePort === undefined) return b;
  const port = typeof servicePort === "string" ? { name: servicePort } : servicePort === undefined ? {} : { number: servicePort };
  return { service: { name: serviceName ?? "", port }, ...rest };
}

function backendFromHub(b: unknown): unknown {
  if (!isMap(b) || !isMap(b.service)) return b;
  const { service, ...rest } = b;
  const port = service.port ?? {};
  const servicePort = port.name ? port.name : port.number;
  return { serviceName: service.name ?? "", ...(servicePort !== undefined ? { servicePort } : {}), ...rest };
}

/** Applies `backend` to every backend of an Ingress spec, and renames the default backend's key. */
function mapBackends(spec: Obj, backend: (b: unknown) => unknown, from: string, to: string, fillPathType: boolean): Obj {
  const out = renameKey(spec, from, to, backend);
  for (const rule of Array.isArray(out.rules) ? out.rules : []) {
    for (const path of Array.isArray(rule?.http?.paths) ? rule.http.paths : []) {
      if (!isMap(path)) continue;
      if (path.backend !== undefined) path.backend = backend(path.backend);
      if (fillPathType && (path.pathType === undefined || path.pathType === null)) path.pathType = "ImplementationSpecific";
    }
  }
  return out;
}

const toHub: Convert = (obj) => {
  if (isMap(obj.spec)) obj.spec = mapBackends(obj.spec, backendToHub, "backend", "defaultBackend", true);
  return obj;
};
const fromHub: Convert = (obj) => {
  if (isMap(obj.spec)) obj.spec = mapBackends(obj.spec, backendFromHub, "defaultBackend", "backend", false);
  return obj;
};

const deprecated = (since: string) => ({ in: since, removedIn: "1.22", replacement: "networking.k8s.io/v1 Ingress" });

export const INGRESS_ROWS: VersionRow[] = [
  row({ group: "extensions", version: "v1beta1", kind: "Ingress", hub: HUB, served: true, deprecated: deprecated("1.14"), toHub, fromHub }),
  row({ group: "networking.k8s.io", version: "v1beta1", kind: "Ingress", hub: HUB, served: true, deprecated: deprecated("1.19"), toHub, fromHub }),
];
