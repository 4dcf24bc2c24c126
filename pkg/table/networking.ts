// Printers for networking.k8s.io and discovery.k8s.io, after upstream's pkg/printers/internalversion (v1.21).
import type { Obj } from "../registry/types.ts";
import { ageColumn, formatLabelSelector, listWithMore, nameColumn, str, type Printers } from "./columns.ts";
import { loadBalancerIngress } from "./core.ts";

/** Up to three rule hosts, `*` when no rule names one. */
function ingressHosts(ing: Obj): string {
  const rules: Obj[] = ing.spec?.rules ?? [];
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const r of rules) {
    if (hosts.length === max) more = true;
    if (!more && r.host) hosts.push(r.host);
  }
  if (!hosts.length) return "*";
  return more ? `${hosts.join(",")} + ${rules.length - max} more...` : hosts.join(",");
}

function ingressClassParameters(ic: Obj): string {
  const p = ic.spec?.parameters;
  if (!p) return "<none>";
  return `${p.kind ?? ""}${p.apiGroup ? `.${p.apiGroup}` : ""}/${p.name ?? ""}`;
}

function slicePorts(es: Obj): string {
  const ports: Obj[] = es.ports ?? [];
  return listWithMore(ports.map((p) => (p.port !== undefined && p.port !== null ? String(p.port) : p.name !== undefined && p.name !== null ? p.name : "*")));
}

const sliceEndpoints = (es: Obj) => listWithMore((es.endpoints ?? []).flatMap((e: Obj) => e.addresses ?? []));

export const NETWORKING: Printers = {
  "Ingress.networking.k8s.io": {
    columns: [
      nameColumn,
      str("Class", "The IngressClass of the ingress.", (o) => o.spec?.ingressClassName ?? "<none>"),
      str("Hosts", "Hosts the rules match.", ingressHosts),
      str("Address", "Load-balancer ingress points.", (o) => loadBalancerIngress(o.status?.loadBalancer)),
      str("Ports", "Ports the ingress serves.", (o) => ((o.spec?.tls ?? []).length ? "80, 443" : "80")),
      ageColumn,
    ],
  },
  "IngressClass.networking.k8s.io": {
    columns: [
      nameColumn,
      str("Controller", "The controller implementing the class.", (o) => o.spec?.controller ?? ""),
      str("Parameters", "The resource holding the class's parameters.", ingressClassParameters),
      ageColumn,
    ],
  },
  "NetworkPolicy.networking.k8s.io": {
    columns: [
      nameColumn,
      str("Pod-Selector", "The pods the policy applies to.", (o) => formatLabelSelector(o.spec?.podSelector ?? {})),
      ageColumn,
    ],
  },
  "EndpointSlice.discovery.k8s.io": {
    columns: [
      nameColumn,
      str("AddressType", "Type of the addresses.", (o) => o.addressType ?? ""),
      str("Ports", "Ports of the slice.", slicePorts),
      str("Endpoints", "Addresses of the endpoints.", sliceEndpoints),
      ageColumn,
    ],
  },
};
