// What the files of configMap, secret, downwardAPI and projected volumes hold (upstream's MakePayload
// and CollectData): one FileProjection per path, with its mode (item mode, else defaultMode, else 0644).
import type { Obj } from "../node.ts";
import type { Payload } from "./atomic.ts";
import { namedContainerResourceValue, podMetadataField, type Allocatable } from "./downward.ts";
import { orEmpty, type PodObjects } from "./objects.ts";

const DEFAULT_MODE = 0o644;

export interface PayloadContext {
  pod: Obj;
  objects: PodObjects;
  allocatable: () => Allocatable;
}

/** Key → content of a ConfigMap (data, then binaryData) or a Secret (data, decoded). */
type Contents = Map<string, Uint8Array | string>;

const configMapContents = (cm: Obj | undefined): Contents => new Map<string, Uint8Array | string>([
  ...Object.entries<string>(cm?.data ?? {}),
  ...Object.entries<string>(cm?.binaryData ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64")] as [string, Uint8Array]),
]);
const secretContents = (s: Obj | undefined): Contents =>
  new Map(Object.entries<string>(s?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64")] as [string, Uint8Array]));

/** MakePayload: every key, or the items named (a missing key fails unless the source is optional). */
function keyPayload(contents: Contents, items: Obj[] | undefined, defaultMode: number, optional: boolean, missing: (key: string) => string, into: Payload): void {
  if (!items?.length) {
    for (const [k, data] of contents) into.set(k, { data, mode: defaultMode });
    return;
  }
  for (const item of items) {
    const data = contents.get(item.key);
    if (data === undefined) {
      if (optional) continue;
      throw new Error(missing(item.key));
    }
    into.set(item.path, { data, mode: item.mode ?? defaultMode });
  }
}

async function configMapInto(src: Obj, defaultMode: number, c: PayloadContext, into: Payload): Promise<void> {
  const optional = src.optional === true;
  const cm = await orEmpty(c.objects.configMap(c.pod.metadata.namespace, src.name), optional);
  keyPayload(configMapContents(cm), src.items, defaultMode, optional, (k) => `configmap references non-existent config key: ${k}`, into);
}

async function secretInto(src: Obj, defaultMode: number, c: PayloadContext, into: Payload): Promise<void> {
  const optional = src.optional === true;
  const s = await orEmpty(c.objects.secret(c.pod.metadata.namespace, src.secretName ?? src.name), optional);
  keyPayload(secretContents(s), src.items, defaultMode, optional, (k) => `secret references non-existent secret key: ${k}`, into);
}

function downwardInto(items: Obj[] = [], defaultMode: number, c: PayloadContext, into: Payload): void {
  for (const item of items) {
    let data = "";
    if (item.fieldRef) data = podMetadataField(c.pod, item.fieldRef.fieldPath);
    else if (item.resourceFieldRef) data = namedContainerResourceValue(item.resourceFieldRef, c.pod, c.allocatable());
    into.set(item.path.replace(/\/+$/, ""), { data, mode: item.mode ?? defaultMode });
  }
}

export async function configMapPayload(v: Obj, c: PayloadContext): Promise<Payload> {
  const p: Payload = new Map();
  await configMapInto(v, v.defaultMode ?? DEFAULT_MODE, c, p);
  return p;
}

export async function secretPayload(v: Obj, c: PayloadContext): Promise<Payload> {
  const p: Payload = new Map();
  await secretInto(v, v.defaultMode ?? DEFAULT_MODE, c, p);
  return p;
}

export async function downwardAPIPayload(v: Obj, c: PayloadContext): Promise<Payload> {
  const p: Payload = new Map();
  downwardInto(v.items, v.defaultMode ?? DEFAULT_MODE, c, p);
  return p;
}

/** One source of a projected volume into `p`. */
async function sourceInto(s: Obj, mode: number, c: PayloadContext, p: Payload): Promise<void> {
  if (s.configMap) await configMapInto(s.configMap, mode, c, p);
  else if (s.secret) await secretInto(s.secret, mode, c, p);
  else if (s.downwardAPI) downwardInto(s.downwardAPI.items, mode, c, p);
  else if (s.serviceAccountToken) {
    const t = s.serviceAccountToken;
    p.set(t.path, { data: await c.objects.token(c.pod, t.audience || undefined, t.expirationSeconds ?? 3600), mode });
  }
}

/**
 * Every source of a projected volume into one payload; later sources win a shared path, and the first
 * source (in order) that fails is the error. The sources are read at once: the service-account volume's
 * token and ConfigMap are two requests, not one after the other.
 */
export async function projectedPayload(v: Obj, c: PayloadContext): Promise<Payload> {
  const mode = v.defaultMode ?? DEFAULT_MODE;
  const parts: Payload[] = (v.sources ?? []).map(() => new Map());
  const settled = await Promise.allSettled((v.sources ?? []).map((s: Obj, i: number) => sourceInto(s, mode, c, parts[i])));
  for (const r of settled) if (r.status === "rejected") throw r.reason;
  return new Map(parts.flatMap((part) => [...part]));
}
