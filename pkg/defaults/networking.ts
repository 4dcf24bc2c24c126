// Defaults of networking.k8s.io/v1 NetworkPolicy and discovery.k8s.io/v1 EndpointSlice. (Ingress v1
// has none: pathType is required there.)
import type { Obj } from "../registry/types.ts";
import { child, fill, items } from "./fill.ts";

export function defaultNetworkPolicy(np: Obj): void {
  const sp = child(np, "spec");
  for (const dir of ["ingress", "egress"]) for (const rule of items(sp, dir)) for (const p of items(rule, "ports")) fill(p, { protocol: "TCP" });
  // A policy naming no types governs ingress, and egress too when it has egress rules.
  if (!Array.isArray(sp.policyTypes) || sp.policyTypes.length === 0) {
    sp.policyTypes = Array.isArray(sp.egress) && sp.egress.length ? ["Ingress", "Egress"] : ["Ingress"];
  }
}

export function defaultEndpointSlice(es: Obj): void {
  for (const p of items(es, "ports")) fill(p, { name: "", protocol: "TCP" });
}
