// LimitRanger: the LimitRanges of a namespace default a new pod's container requests and limits, and bound
// containers, pods and claims by min, max and maxLimitRequestRatio, in upstream's words.
import { forbidden } from "../../api/status.ts";
import type { Obj } from "../../registry/types.ts";
import { cachedList } from "../lookup.ts";
import { type ResourceList, formatQuantity, podResources, value } from "../../quota/resources.ts";
import { type Attributes, type Plugin, type PluginContext, isKind, qualified } from "../types.ts";

type Found = { req?: string; lim?: string };

/** Checks one resource of one subject (a Container, a Pod, a PersistentVolumeClaim) against an item. */
function check(type: string, item: Obj, r: string, found: Found, errors: string[]) {
  const min = item.min?.[r], max = item.max?.[r], ratio = item.maxLimitRequestRatio?.[r];
  if (min !== undefined) {
    if (found.req === undefined) errors.push(`minimum ${r} usage per ${type} is ${min}.  No request is specified`);
    else if (value(found.req) < value(min)) errors.push(`minimum ${r} usage per ${type} is ${min}, but request is ${found.req}`);
    if (found.lim !== undefined && value(found.lim) < value(min)) errors.push(`minimum ${r} usage per ${type} is ${min}, but limit is ${found.lim}`);
  }
  if (max !== undefined) {
    // a claim has requests only: its maximum bounds the request
    const bounded = type === "PersistentVolumeClaim" ? found.req : found.lim;
    const what = type === "PersistentVolumeClaim" ? "request" : "limit";
    if (bounded === undefined) errors.push(`maximum ${r} usage per ${type} is ${max}.  No ${what} is specified`);
    else if (value(bounded) > value(max)) errors.push(`maximum ${r} usage per ${type} is ${max}, but ${what} is ${bounded}`);
  }
  if (ratio !== undefined) {
    const req = value(found.req), lim = value(found.lim);
    if (found.lim === undefined || found.req === undefined || req === 0) errors.push(`${r} max limit to request ratio per ${type} is ${ratio}, but no request is specified or request is 0`);
    else if (lim / req > value(ratio)) errors.push(`${r} max limit to request ratio per ${type} is ${ratio}, but provided ratio is ${(lim / req).toFixed(6)}`);
  }
}

const resourcesOf = (item: Obj) => new Set([item.min, item.max, item.maxLimitRequestRatio].flatMap((l) => Object.keys(l ?? {})));

/** Defaults a container's missing requests and limits from a Container item; notes what was set. */
function defaultContainer(c: Obj, item: Obj, notes: string[], init: boolean) {
  for (const [kind, from] of [["requests", item.defaultRequest], ["limits", item.default]] as [string, ResourceList | undefined][]) {
    for (const [r, q] of Object.entries(from ?? {})) {
      const res = (c.resources ??= {});
      if (res[kind]?.[r] !== undefined) continue;
      (res[kind] ??= {})[r] = q;
      notes.push(`${r} ${kind === "requests" ? "request" : "limit"} for ${init ? "init container" : "container"} ${c.name}`);
    }
  }
}

function checkPod(pod: Obj, items: Obj[], errors: string[]) {
  const containers: Obj[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  for (const item of items.filter((i) => i.type === "Container")) {
    for (const c of containers) for (const r of resourcesOf(item)) check("Container", item, r, { req: c.resources?.requests?.[r], lim: c.resources?.limits?.[r] }, errors);
  }
  const requests = podResources(pod, "requests"), limits = podResources(pod, "limits");
  const text = (n: number | undefined) => (n === undefined ? undefined : formatQuantity(n));
  for (const item of items.filter((i) => i.type === "Pod")) {
    for (const r of resourcesOf(item)) check("Pod", item, r, { req: text(requests[r]), lim: text(limits[r]) }, errors);
  }
}

export function limitRanger(ctx: PluginContext): Plugin {
  const ranges = ctx.registry.lookup("", "v1", "limitranges")!;
  const items = async (a: Attributes) => (await cachedList(ranges, a.namespace)).flatMap((lr) => (lr.spec?.limits ?? []) as Obj[]);
  const isPod = (a: Attributes) => isKind(a, "", "Pod");
  return {
    handles: (a) => (isPod(a) || isKind(a, "", "PersistentVolumeClaim")) && a.operation === "CREATE" && !a.subresource,
    async admit(a) {
      if (!isPod(a)) return;
      const pod = a.object!;
      const notes: string[] = [];
      for (const item of (await items(a)).filter((i) => i.type === "Container")) {
        for (const c of (pod.spec?.initContainers ?? []) as Obj[]) defaultContainer(c, item, notes, true);
        for (const c of (pod.spec?.containers ?? []) as Obj[]) defaultContainer(c, item, notes, false);
      }
      if (notes.length) (pod.metadata.annotations ??= {})["kubernetes.io/limit-ranger"] = `LimitRanger plugin set: ${notes.join("; ")}`;
    },
    async validate(a) {
      const all = await items(a);
      if (!all.length) return;
      const errors: string[] = [];
      if (isPod(a)) checkPod(a.object!, all, errors);
      else {
        const requests = a.object!.spec?.resources?.requests ?? {};
        for (const item of all.filter((i) => i.type === "PersistentVolumeClaim")) for (const r of resourcesOf(item)) check("PersistentVolumeClaim", item, r, { req: requests[r], lim: requests[r] }, errors);
      }
      if (errors.length) throw forbidden(qualified(a), a.name, errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`);
    },
  };
}
