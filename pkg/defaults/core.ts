// Defaults of the core/v1 kinds other than pods, Services and Secrets.
import type { Obj } from "../registry/types.ts";
import { child, fill, fillZero, isEmptyMap, items, sub } from "./fill.ts";
import { defaultPodTemplate } from "./pod.ts";
import { defaultClaim, defaultPersistentSources } from "./volumes.ts";
import { isMap } from "../util/ismap.ts";

/** Every named Namespace carries its name as a label, which no write can remove or change. */
export function defaultNamespace(ns: Obj): void {
  const name = ns.metadata?.name;
  if (typeof name === "string" && name) child(ns.metadata, "labels")["kubernetes.io/metadata.name"] = name;
}

/** A controller without a selector or labels takes its template's labels for both. */
export function defaultReplicationController(rc: Obj): void {
  const sp = child(rc, "spec");
  fill(sp, { replicas: 1 });
  const labels = sub(sub(sp, "template"), "metadata")?.labels;
  if (isMap(labels)) {
    if (isEmptyMap(sp.selector)) sp.selector = { ...labels };
    if (isEmptyMap(rc.metadata.labels)) rc.metadata.labels = { ...labels };
  }
  defaultPodTemplate(sp.template);
}

export const defaultPodTemplateObject = (pt: Obj) => defaultPodTemplate(pt.template);

export function defaultPersistentVolume(pv: Obj): void {
  const sp = child(pv, "spec");
  fillZero(sp, { persistentVolumeReclaimPolicy: "Retain" });
  fill(sp, { volumeMode: "Filesystem" });
  defaultPersistentSources(sp);
  fillZero(child(pv, "status"), { phase: "Pending" });
}

export const defaultPersistentVolumeClaim = defaultClaim;

export function defaultEndpoints(ep: Obj): void {
  for (const ss of items(ep, "subsets")) for (const p of items(ss, "ports")) fillZero(p, { protocol: "TCP" });
}

/** A node that reports its capacity can allocate all of it unless it says otherwise. */
export function defaultNode(node: Obj): void {
  const st = sub(node, "status");
  if (st && isMap(st.capacity)) st.allocatable ??= { ...st.capacity };
}

/**
 * A container limit range: the default limit is the max, the default request the default limit,
 * else the min.
 */
export function defaultLimitRange(lr: Obj): void {
  for (const item of items(sub(lr, "spec"), "limits")) {
    if (item.type !== "Container") continue;
    const dflt = child(item, "default"), request = child(item, "defaultRequest");
    for (const [k, v] of Object.entries(sub(item, "max") ?? {})) dflt[k] ??= v;
    for (const [k, v] of Object.entries(dflt)) request[k] ??= v;
    for (const [k, v] of Object.entries(sub(item, "min") ?? {})) request[k] ??= v;
    // empty maps are not written, as upstream's omitempty
    for (const k of ["default", "defaultRequest"]) if (isEmptyMap(item[k])) delete item[k];
  }
}
