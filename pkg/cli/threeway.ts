// Client-side apply's patch, as kubectl computes it: a three-way diff of the last-applied configuration
// (original), the manifest (modified) and the live object (current). Changes and additions come from
// current → modified, deletions from original → modified (so fields other writers set are kept).
// Built-in types get a strategic merge patch (merge lists keyed by their merge key, `$patch: delete`,
// `$deleteFromPrimitiveList`, `$setElementOrder`), other types a JSON merge patch.
import { type Schema, fieldMeta, patchMetaFor } from "../patch/merge-keys.ts";
import { goJSON } from "./printers.ts";
import { isMap } from "../util/ismap.ts";

type Obj = Record<string, any>;

export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** Groups whose types kubectl knows (and patches strategically); everything else gets a merge patch. */
const BUILTIN_GROUPS = new Set([
  "", "apps", "batch", "autoscaling", "policy", "extensions", "networking.k8s.io", "rbac.authorization.k8s.io",
  "storage.k8s.io", "scheduling.k8s.io", "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io", "node.k8s.io",
  "certificates.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io",
  "flowcontrol.apiserver.k8s.io", "authentication.k8s.io", "authorization.k8s.io", "resource.k8s.io",
  "internal.apiserver.k8s.io", "storagemigration.k8s.io",
]);

export const isStrategic = (group: string) => BUILTIN_GROUPS.has(group);

/** The manifest with its last-applied annotation set (to its own JSON, without that annotation). */
export function withLastApplied(obj: Obj): Obj {
  const copy = structuredClone(obj);
  copy.metadata = { ...(copy.metadata ?? {}) };
  const annotations = { ...(copy.metadata.annotations ?? {}) };
  delete annotations[LAST_APPLIED];
  copy.metadata.annotations = annotations;
  const text = `${goJSON(copy)}\n`;
  copy.metadata.annotations = { ...annotations, [LAST_APPLIED]: text };
  return copy;
}

/** The last-applied configuration recorded on a live object, if any. */
export function lastApplied(current: Obj): Obj | undefined {
  const text = current.metadata?.annotations?.[LAST_APPLIED];
  if (!text) return undefined;
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" ? v : undefined;
  } catch {
    return undefined;
  }
}

interface DiffOptions { ignoreDeletions?: boolean; ignoreChangesAndAdditions?: boolean; setElementOrder?: boolean }

const shape = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "list" : typeof v === "object" ? "map" : "scalar");
const equal = (a: unknown, b: unknown) => a === b || goJSON(a) === goJSON(b);

/**
 * The patch that turns `current` into `modified` while deleting what `original` had and `modified` dropped.
 * `strategic` selects a strategic merge patch for `kind` (else a JSON merge patch). `{}` means unchanged.
 */
export function threeWayPatch(original: Obj | undefined, modified: Obj, current: Obj, kind: string, strategic: boolean): Obj {
  const schema = strategic ? patchMetaFor(kind) : undefined;
  const delta = diffMaps(current, modified, schema, { ignoreDeletions: true, setElementOrder: strategic });
  const deletions = diffMaps(original ?? {}, modified, schema, { ignoreChangesAndAdditions: true });
  return combine(deletions, delta, schema);
}

function diffMaps(original: Obj, modified: Obj, schema: Schema | undefined, o: DiffOptions): Obj {
  const patch: Obj = {};
  for (const [key, mod] of Object.entries(modified)) {
    if (mod === undefined) continue;
    if (!Object.hasOwn(original, key)) {
      if (!o.ignoreChangesAndAdditions) patch[key] = mod;
      continue;
    }
    const orig = original[key];
    if (shape(orig) !== shape(mod)) {
      if (!o.ignoreChangesAndAdditions) patch[key] = mod;
      continue;
    }
    const meta = schema ? fieldMeta(schema, key) : {};
    if (isMap(orig)) {
      if (meta.strategy === "replace") {
        if (!o.ignoreChangesAndAdditions && !equal(orig, mod)) patch[key] = mod;
        continue;
      }
      const sub = diffMaps(orig, mod, meta.fields, o);
      if (Object.keys(sub).length) patch[key] = sub;
    } else if (Array.isArray(orig)) {
      if (schema && meta.strategy === "merge") diffMergeList(patch, key, orig, mod as unknown[], meta.key, meta.fields, o);
      else if (!o.ignoreChangesAndAdditions && !equal(orig, mod)) patch[key] = mod;
    } else if (!o.ignoreChangesAndAdditions && orig !== mod) {
      patch[key] = mod;
    }
  }
  if (!o.ignoreDeletions) {
    for (const key of Object.keys(original)) if (!Object.hasOwn(modified, key)) patch[key] = null;
  }
  return patch;
}

function diffMergeList(patch: Obj, key: string, orig: unknown[], mod: unknown[], mergeKey: string | undefined, fields: Schema | undefined, o: DiffOptions) {
  if (orig.length === 0) {
    if (mod.length && !o.ignoreChangesAndAdditions) patch[key] = mod;
    return;
  }
  if (mergeKey && [...orig, ...mod].every((i) => isMap(i))) {
    const byKey = new Map((orig as Obj[]).map((i) => [goJSON(i[mergeKey]), i]));
    const modKeys = new Set((mod as Obj[]).map((i) => goJSON(i[mergeKey])));
    const list: Obj[] = [];
    for (const item of mod as Obj[]) {
      const prev = byKey.get(goJSON(item[mergeKey]));
      if (!prev) { if (!o.ignoreChangesAndAdditions) list.push(item); continue; }
      const sub = diffMaps(prev, item, fields, o);
      if (Object.keys(sub).length) list.push({ [mergeKey]: item[mergeKey], ...sub });
    }
    if (!o.ignoreDeletions) {
      for (const item of orig as Obj[]) {
        if (!modKeys.has(goJSON(item[mergeKey]))) list.push({ [mergeKey]: item[mergeKey], $patch: "delete" });
      }
    }
    if (list.length) patch[key] = list;
    const orderSame = orig.length === mod.length && (orig as Obj[]).every((x, i) => equal(x[mergeKey], (mod as Obj[])[i][mergeKey]));
    if (o.setElementOrder && (list.length > 0 || (!o.ignoreChangesAndAdditions && !orderSame))) {
      patch[`$setElementOrder/${key}`] = (mod as Obj[]).map((i) => ({ [mergeKey]: i[mergeKey] }));
    }
    return;
  }
  // A merge list of scalars (e.g. finalizers): additions, and deletions through a directive.
  const has = (l: unknown[], v: unknown) => l.some((x) => equal(x, v));
  const added = o.ignoreChangesAndAdditions ? [] : mod.filter((v) => !has(orig, v));
  const removed = o.ignoreDeletions ? [] : orig.filter((v) => !has(mod, v));
  if (added.length) patch[key] = added;
  if (removed.length) patch[`$deleteFromPrimitiveList/${key}`] = removed;
  if (o.setElementOrder && ((!o.ignoreDeletions && removed.length > 0) || (!o.ignoreChangesAndAdditions && !equal(orig, mod)))) {
    patch[`$setElementOrder/${key}`] = mod;
  }
}

/** Merges the deletions patch and the changes patch (items of one merge list with the same key become one). */
function combine(a: Obj, b: Obj, schema: Schema | undefined): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    const meta = schema ? fieldMeta(schema, k) : {};
    if (isMap(prev) && isMap(v)) out[k] = combine(prev, v, meta.fields);
    else if (Array.isArray(prev) && Array.isArray(v) && meta.strategy === "merge" && meta.key) {
      // Changes first, then the deletions no change mentions (the order kubectl sends).
      const rest = [...prev];
      const list = v.map((item) => {
        const i = rest.findIndex((x) => isMap(x) && isMap(item) && x.$patch === undefined && equal(x[meta.key!], item[meta.key!]));
        return i >= 0 ? combine(rest.splice(i, 1)[0], item, meta.fields) : item;
      });
      out[k] = [...list, ...rest];
    } else if (Array.isArray(prev) && Array.isArray(v) && meta.strategy === "merge") out[k] = [...v, ...prev];
    else out[k] = v;
  }
  return out;
}
