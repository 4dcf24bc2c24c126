// What the endpointslice controller writes for one Service (upstream's reconciler, v1.21): the endpoints
// its pods make, grouped by the ports they resolve to, placed in the Service's existing slices where they
// are, changed in place where they changed, the rest filling slices being updated anyway, then one
// unchanged slice they fit in whole, then new slices of at most `max` endpoints. Emptied slices are
// deleted (or reused for a new one), and a Service without endpoints keeps one empty placeholder slice.
import type { Obj } from "../client/client.ts";
import {
  findPort, HEADLESS_LABEL, isPodReady, LAST_CHANGE_TRIGGER_TIME, podAddress, rfc3339Nano, semanticEqual, serviceFamily,
  shouldPodBeInEndpoints, shouldSetHostname,
} from "./endpointutil.ts";

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
export const CONTROLLER_NAME = "endpointslice-controller.k8s.io";
const ZONE_LABEL = "topology.kubernetes.io/zone";
const RESERVED_LABELS = [SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL];

export interface SlicePlan { create: Obj[]; update: Obj[]; delete: Obj[] }

interface Desired { ports: Obj[]; endpoints: Map<string, Obj> }

/** Ports in a fixed order, and the key of such a list (slices group endpoints by it). */
const portOrder = (a: Obj, b: Obj) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.port - b.port);
const portsKey = (ports: Obj[] | undefined) => JSON.stringify([...(ports ?? [])].sort(portOrder).map((p) => [p.name ?? "", p.port, p.protocol, p.appProtocol ?? ""]));

/** An endpoint's identity in a slice (upstream's endpoint hash): its addresses, hostname and pod. */
const endpointKey = (ep: Obj) => JSON.stringify([ep.addresses, ep.hostname ?? "", ep.targetRef?.namespace ?? "", ep.targetRef?.name ?? ""]);

/** The ports the Service's ports resolve to on the pod; a port the pod lacks is left out. */
function endpointPorts(svc: Obj, pod: Obj): Obj[] {
  const out: Obj[] = [];
  for (const sp of svc.spec.ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    const p: Obj = { name: sp.name ?? "", port, protocol: sp.protocol ?? "TCP" };
    if (sp.appProtocol) p.appProtocol = sp.appProtocol;
    out.push(p);
  }
  return out.sort(portOrder);
}

/** The endpoint of a pod: ready only when serving and not terminating (or publishNotReadyAddresses). */
function podToEndpoint(svc: Obj, pod: Obj, ip: string, node: Obj | undefined): Obj {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata.deletionTimestamp;
  const ready = !!svc.spec.publishNotReadyAddresses || (serving && !terminating);
  const m = pod.metadata;
  const ep: Obj = { addresses: [ip], conditions: { ready, serving, terminating } };
  if (shouldSetHostname(pod, svc)) ep.hostname = pod.spec.hostname;
  ep.targetRef = { kind: "Pod", namespace: m.namespace, name: m.name, uid: m.uid };
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  const zone = node?.metadata.labels?.[ZONE_LABEL];
  if (zone) ep.zone = zone;
  return ep;
}

/** The labels of the Service's slices (its own, the reserved ones set), and whether the slice's differ. */
function sliceLabels(svc: Obj, slice?: Obj): { labels: Record<string, string>; changed: boolean } {
  const labels = Object.fromEntries(Object.entries<string>(svc.metadata.labels ?? {}).filter(([k]) => !RESERVED_LABELS.includes(k)));
  if (!svc.spec.clusterIP || svc.spec.clusterIP === "None") labels[HEADLESS_LABEL] = "";
  labels[SERVICE_NAME_LABEL] = svc.metadata.name;
  labels[MANAGED_BY_LABEL] = CONTROLLER_NAME;
  return { labels, changed: !!slice && !semanticEqual(slice.metadata.labels, labels) };
}

/** Whether a slice is the Service's (its controller reference names the Service's uid). */
export const ownedBy = (slice: Obj, svc: Obj) =>
  (slice.metadata.ownerReferences ?? []).some((r: Obj) => r.kind === "Service" && r.apiVersion === "v1" && r.uid === svc.metadata.uid && r.controller);

function newSlice(svc: Obj, addressType: string, ports: Obj[]): Obj {
  const name = svc.metadata.name;
  return {
    apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice",
    metadata: {
      generateName: name.length < 253 ? `${name}-` : name, namespace: svc.metadata.namespace, labels: sliceLabels(svc).labels,
      ownerReferences: [{ apiVersion: "v1", kind: "Service", name, uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    addressType, endpoints: [], ports,
  };
}

export interface ReconcileInput {
  svc: Obj;
  pods: Obj[];
  node: (name: string) => Obj | undefined;
  /** The slices managed for this Service (deleting ones left out). */
  existing: Obj[];
  max: number;
  triggerTime?: Date;
}

export function reconcileSlices(r: ReconcileInput): SlicePlan {
  const families: string[] = r.svc.spec.ipFamilies?.length ? r.svc.spec.ipFamilies : [serviceFamily(r.svc)];
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  const byType = new Map<string, Obj[]>(families.map((f) => [f, []]));
  for (const s of r.existing) {
    const list = ownedBy(s, r.svc) ? byType.get(s.addressType) : undefined;
    if (list) list.push(s);
    else plan.delete.push(s);
  }
  for (const [addressType, existing] of byType) reconcileAddressType(r, addressType, existing, plan);
  return finalize(r, plan);
}

function reconcileAddressType(r: ReconcileInput, addressType: string, existing: Obj[], plan: SlicePlan): void {
  const desired = new Map<string, Desired>();
  for (const pod of r.pods) {
    // Terminating pods stay, with ready false, so that proxies can drain them (the terminating condition).
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ip = podAddress(r.svc, pod);
    if (!ip || (addressType === "IPv6") !== ip.includes(":")) continue;
    const ports = endpointPorts(r.svc, pod);
    const key = portsKey(ports);
    let d = desired.get(key);
    if (!d) desired.set(key, (d = { ports, endpoints: new Map() }));
    const ep = podToEndpoint(r.svc, pod, ip, pod.spec?.nodeName ? r.node(pod.spec.nodeName) : undefined);
    d.endpoints.set(endpointKey(ep), ep);
  }
  const existingByPorts = new Map<string, Obj[]>();
  for (const s of existing) {
    const key = portsKey(s.ports);
    existingByPorts.set(key, [...(existingByPorts.get(key) ?? []), s]);
  }
  const deletesBefore = plan.delete.length, createsBefore = plan.create.length;
  for (const [key, d] of desired) reconcilePorts(r, addressType, d.ports, existingByPorts.get(key) ?? [], d.endpoints, plan);
  // Slices of ports no pod resolves to any more go.
  for (const [key, slices] of existingByPorts) if (!desired.has(key)) plan.delete.push(...slices);
  // A Service with no endpoints of this type keeps one empty slice, so that "none" is said, not unknown.
  const deleted = plan.delete.slice(deletesBefore);
  if (existing.length === deleted.length && plan.create.length === createsBefore) {
    const isPlaceholder = (s: Obj) => !s.endpoints?.length && !s.ports?.length;
    if (deleted.length === 1 && isPlaceholder(deleted[0])) plan.delete.pop();
    else plan.create.push(newSlice(r.svc, addressType, []));
  }
}

/** One group of ports: keeps, changes, fills and makes slices so that they hold exactly `want`. */
function reconcilePorts(r: ReconcileInput, addressType: string, ports: Obj[], existing: Obj[], want: Map<string, Obj>, plan: SlicePlan): void {
  const toUpdate: Obj[] = [];
  const unchanged: Obj[] = [];
  // 1. Existing slices lose endpoints no longer wanted and take changed ones as they are now.
  for (const slice of existing) {
    const kept: Obj[] = [];
    let changed = false;
    for (const ep of slice.endpoints ?? []) {
      const key = endpointKey(ep);
      const now = want.get(key);
      if (!now) continue;
      kept.push(now);
      if (!semanticEqual(now, ep)) changed = true;
      want.delete(key);
    }
    const labels = sliceLabels(r.svc, slice);
    if (changed || kept.length !== (slice.endpoints ?? []).length || labels.changed) {
      if (kept.length === 0) plan.delete.push(slice);
      else toUpdate.push({ ...slice, metadata: { ...slice.metadata, labels: labels.labels }, endpoints: kept });
    } else unchanged.push(slice);
  }
  const take = (slice: Obj) => {
    for (const [key, ep] of want) {
      if (slice.endpoints.length >= r.max) break;
      slice.endpoints.push(ep);
      want.delete(key);
    }
  };
  // 2. Slices being written anyway are filled first, the fullest first.
  if (want.size > 0) for (const slice of toUpdate.sort((a, b) => b.endpoints.length - a.endpoints.length)) take(slice);
  // 3. The rest goes whole into the unchanged slice it fits best, else into new slices.
  while (want.size > 0) {
    let fill: Obj | undefined;
    if (want.size < r.max) {
      let room = Infinity;
      for (const s of unchanged) {
        const free = r.max - (s.endpoints?.length ?? 0);
        if (free >= want.size && free < room) { room = free; fill = s; }
      }
    }
    if (fill) {
      unchanged.splice(unchanged.indexOf(fill), 1);
      fill = { ...fill, endpoints: [...(fill.endpoints ?? [])] };
      take(fill);
      toUpdate.push(fill);
    } else {
      const slice = newSlice(r.svc, addressType, ports);
      take(slice);
      plan.create.push(slice);
    }
  }
  plan.update.push(...toUpdate);
}

/** New slices take the names of slices being deleted (an update instead of a delete and a create); trigger times are set. */
function finalize(r: ReconcileInput, plan: SlicePlan): SlicePlan {
  for (let i = 0; i < plan.delete.length && plan.create.length > 0;) {
    const old = plan.delete[i];
    const slice = plan.create[plan.create.length - 1];
    if (old.addressType === slice.addressType && ownedBy(old, r.svc)) {
      plan.create.pop();
      const { generateName: _, ...meta } = slice.metadata;
      plan.update.push({ ...slice, metadata: { ...old.metadata, ...meta, name: old.metadata.name } });
      plan.delete.splice(i, 1);
    } else i++;
  }
  for (const s of [...plan.create, ...plan.update]) {
    const annotations = { ...s.metadata.annotations };
    if (r.triggerTime) annotations[LAST_CHANGE_TRIGGER_TIME] = rfc3339Nano(r.triggerTime);
    else delete annotations[LAST_CHANGE_TRIGGER_TIME];
    s.metadata = { ...s.metadata, annotations };
  }
  return plan;
}
