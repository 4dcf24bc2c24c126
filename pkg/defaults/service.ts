// Defaults of Services (core/v1), and the fields a type change leaves without meaning.
import type { Obj } from "../registry/types.ts";
import { child, fill, fillZero, isEmptyMap, items, sub } from "./fill.ts";

/** How long a ClientIP affinity lasts unless told: three hours. */
const AFFINITY_SECONDS = 10800;

const needsNodePorts = (sp: Obj) => sp.type === "NodePort" || sp.type === "LoadBalancer";

export function defaultService(svc: Obj): void {
  const sp = child(svc, "spec");
  fillZero(sp, { sessionAffinity: "None", type: "ClusterIP" });
  if (sp.sessionAffinity === "None") delete sp.sessionAffinityConfig;
  if (sp.sessionAffinity === "ClientIP" && sub(sub(sp, "sessionAffinityConfig"), "clientIP")?.timeoutSeconds == null) {
    sp.sessionAffinityConfig = { clientIP: { timeoutSeconds: AFFINITY_SECONDS } };
  }
  for (const p of items(sp, "ports")) {
    fillZero(p, { protocol: "TCP" });
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port;
  }
  if (needsNodePorts(sp)) fillZero(sp, { externalTrafficPolicy: "Cluster" });
  // The address families of a single-stack IPv4 cluster; an ExternalName has no address. A headless
  // Service without a selector has endpoints of any family (upstream since v1.21).
  if (sp.type !== "ExternalName") {
    if (sp.clusterIP) sp.clusterIPs ??= [sp.clusterIP];
    if (sp.clusterIP === "None" && isEmptyMap(sp.selector)) fill(sp, { ipFamilyPolicy: "RequireDualStack", ipFamilies: ["IPv4", "IPv6"] });
    else fill(sp, { ipFamilyPolicy: "SingleStack", ipFamilies: ["IPv4"] });
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const nodePortsOf = (sp: Obj) => new Set(items(sp, "ports").map((p) => p.nodePort).filter(Boolean));

/**
 * On update, a Service whose new type no longer uses a field the server may have filled in loses it,
 * unless the writer changed that field too (then validation judges the writer's value).
 */
export function dropTypeDependentFields(svc: Obj, old: Obj): void {
  const sp = child(svc, "spec"), was = sub(old, "spec") ?? {};
  if (was.type !== "ExternalName" && sp.type === "ExternalName") {
    if (same(sp.clusterIP, was.clusterIP) && same(sp.clusterIPs, was.clusterIPs)) { delete sp.clusterIP; delete sp.clusterIPs; }
    if (same(sp.ipFamilies, was.ipFamilies)) delete sp.ipFamilies;
    if (same(sp.ipFamilyPolicy, was.ipFamilyPolicy)) delete sp.ipFamilyPolicy;
  }
  if (needsNodePorts(was) && !needsNodePorts(sp)) {
    // only when no node port is new: one the writer added is theirs to explain
    const before = nodePortsOf(was);
    if ([...nodePortsOf(sp)].every((p) => before.has(p))) for (const p of items(sp, "ports")) delete p.nodePort;
    if (same(sp.externalTrafficPolicy, was.externalTrafficPolicy)) delete sp.externalTrafficPolicy;
  }
  const healthChecked = (s: Obj) => s.type === "LoadBalancer" && s.externalTrafficPolicy === "Local";
  if (healthChecked(was) && !healthChecked(sp) && same(sp.healthCheckNodePort, was.healthCheckNodePort)) delete sp.healthCheckNodePort;
}
