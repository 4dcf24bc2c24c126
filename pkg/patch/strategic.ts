// Strategic merge patch (application/strategic-merge-patch+json), applied the way the
// Kubernetes API server applies it (apimachinery strategicpatch, server-side options:
// parallel lists are merged, nulls with nothing to delete are dropped).
import { type FieldMeta, type Schema, fieldMeta, patchMetaFor } from "./merge-keys.ts";
import { isMap } from "../util/ismap.ts";

export { patchMetaFor };
export type { FieldMeta, Schema };

/** An invalid patch; the API layer reports it as 422 Invalid. */
export class PatchError extends Error {
  override name = "PatchError";
}

type Obj = Record<string, unknown>;

const PATCH = "$patch";
const RETAIN_KEYS = "$retainKeys";
const DELETE_FROM = "$deleteFromPrimitiveList";
const SET_ORDER = "$setElementOrder";

const has = (o: object, k: string) => Object.hasOwn(o, k);

/** Applies `patch` to `original` for an object of `kind`. Neither input is modified. */
export function strategicMergePatch(original: unknown, patch: unknown, kind: string): unknown {
  if (!isMap(patch)) throw new PatchError("invalid JSON document");
  const base = isMap(original) ? structuredClone(original) : {};
  // The merge works in place (as upstream does), so it gets private copies.
  return mergeMap(base, structuredClone(patch), patchMetaFor(kind));
}

function mergeMap(original: Obj, patch: Obj, schema: Schema | undefined): Obj {
  if (has(patch, PATCH)) {
    const directive = patch[PATCH];
    if (directive === "replace") {
      delete patch[PATCH];
      return clean(patch) as Obj;
    }
    if (directive === "delete") return {};
    // Upstream accepts no `$patch: merge` on a map either.
    throw new PatchError(`unknown patch type: ${goFmt(directive)} in map: ${goFmt(patch)}`);
  }
  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, schema);

  for (const [patchKey, patchValue] of Object.entries(patch)) {
    let key = patchKey;
    const isDeleteList = patchKey.startsWith(DELETE_FROM);
    if (isDeleteList) key = directiveField(patchKey, DELETE_FROM);

    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const meta = fieldMeta(schema, key);
    const current = original[key];
    // Absent or of another JSON type: the patch value wins (a delete list never adds).
    if (!has(original, key) || shape(current) !== shape(patchValue)) {
      if (!isDeleteList) setOrDelete(original, key, clean(patchValue));
      continue;
    }
    if (isMap(current)) {
      put(original, key, meta.strategy === "replace"
        ? clean(patchValue)
        : mergeMap(current, patchValue as Obj, meta.fields));
    } else if (Array.isArray(current)) {
      put(original, key, meta.strategy === "merge" || isDeleteList
        ? mergeList(current, patchValue as unknown[], meta, key, isDeleteList)
        : clean(patchValue));
    } else {
      put(original, key, patchValue);
    }
  }
  return original;
}

/** `$retainKeys: [...]` drops every original key not listed; the patch may only set listed keys. */
function applyRetainKeys(original: Obj, patch: Obj): void {
  if (!has(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw new PatchError("invalid patch format of retainKeys");
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM) || k.startsWith(SET_ORDER)) continue;
    if (!keep.has(k)) throw new PatchError("invalid patch format of retainKeys");
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/**
 * `$setElementOrder/<field>` lists the final order of the items the client knows about.
 * The field's list is merged here (and removed from the patch), then reordered:
 * listed items follow that order and items only the server has keep their place among them.
 */
function applySetElementOrder(original: Obj, patch: Obj, schema: Schema | undefined): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ORDER)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw badArgType("[]interface {}", order);
    const field = directiveField(directiveKey, SET_ORDER);
    const meta = fieldMeta(schema, field);
    const key = meta.key ?? "";
    const inOriginal = has(original, field);
    const inPatch = has(patch, field);
    const current = original[field];
    const patchList = patch[field];
    if (inOriginal && !Array.isArray(current)) throw badArgType("[]interface {}", current);
    if (inPatch && !Array.isArray(patchList)) throw badArgType("[]interface {}", patchList);
    const originalList = inOriginal ? (current as unknown[]) : [];
    validateAgainstOrder(inPatch ? (patchList as unknown[]) : [], order, key);

    let merged: unknown[];
    if (inOriginal && inPatch) {
      merged = meta.strategy === "merge"
        ? mergeList(originalList, patchList as unknown[], meta, field, false)
        : (clean(patchList) as unknown[]);
    } else if (inPatch) merged = clean(patchList) as unknown[];
    else if (inOriginal) merged = originalList;
    else continue;

    const listed = merged.filter((item) => indexOf(order, item, key) >= 0);
    const serverOnly = merged.filter((item) => indexOf(order, item, key) < 0);
    put(original, field, interleave(listed, serverOnly, order, originalList, key));
    delete patch[field];
  }
}

/** The patch list's items must appear in the same relative order as in `$setElementOrder`. */
function validateAgainstOrder(patchList: unknown[], order: unknown[], key: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = key ? patchList.filter((item) => !(isMap(item) && item[PATCH] === "delete")) : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    // Items carrying a directive have no place in the order.
    if (isMap(items[p]) && has(items[p] as Obj, PATCH)) p++;
    else if (sameKey(items[p], order[o++], key)) p++;
  }
  if (p < items.length) {
    throw new PatchError(
      `The order in patch list:\n${goFmt(patchList)}\n doesn't match ${SET_ORDER} list:\n${goFmt(order)}\n`,
    );
  }
}

function sameKey(item: unknown, orderItem: unknown, key: string): boolean {
  if (!key) return item === orderItem;
  if (!isMap(item)) throw badArgType("map[string]interface {}", item);
  if (!isMap(orderItem)) throw badArgType("map[string]interface {}", orderItem);
  if (!has(item, key)) throw noMergeKey(item, key);
  if (!has(orderItem, key)) throw noMergeKey(orderItem, key);
  return item[key] === orderItem[key];
}

/** Merges a list whose field has patchStrategy merge (or is a `$deleteFromPrimitiveList`). */
function mergeList(original: unknown[], patch: unknown[], meta: FieldMeta, field: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const key = meta.key ?? "";
  let merged: unknown[];
  if (elementShape(original, patch) !== "object") {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = [...new Set([...original, ...patch])]; // a union without duplicates
  } else {
    if (!key) throw new PatchError(`cannot merge lists without merge key for ${field}`);
    [original, patch] = applyListDirectives(original, patch, key);
    merged = [...original];
    for (const item of patch as Obj[]) {
      if (!has(item, key)) throw noMergeKey(item, key);
      const at = merged.findIndex((o) => isMap(o) && o[key] === item[key]);
      if (at >= 0) merged[at] = mergeMap(merged[at] as Obj, item, meta.fields);
      else merged.push(clean(item));
    }
  }
  // Items named by the patch take the patch's order; the others keep their original place.
  const inPatch = merged.filter((item) => indexOf(patch, item, key) >= 0);
  const serverOnly = merged.filter((item) => indexOf(patch, item, key) < 0);
  return interleave(inPatch, serverOnly, patch, original, key);
}

/** Handles `$patch: delete|replace` items; returns the base list and the remaining patch items. */
function applyListDirectives(original: unknown[], patch: unknown[], key: string): [unknown[], unknown[]] {
  const rest: unknown[] = [];
  let replace = false;
  for (const item of patch as Obj[]) {
    if (!has(item, PATCH)) {
      rest.push(item);
      continue;
    }
    const directive = item[PATCH];
    if (directive === "delete") {
      if (!has(item, key)) throw noMergeKey(item, key);
      original = original.filter((o) => !(isMap(o) && o[key] === item[key]));
    } else if (directive === "replace") {
      replace = true; // keep scanning so the other directive items are still dropped
    } else if (directive === "merge") {
      throw new PatchError("merging lists cannot yet be specified in the patch");
    } else {
      throw new PatchError(`unknown patch type: ${goFmt(directive)} in map: ${goFmt(item)}`);
    }
  }
  return replace ? [rest.map(clean), []] : [original, rest];
}

/**
 * Upstream's ordering: `fromPatch` sorted by `patchOrder`, `serverOnly` sorted by the original
 * order, then interleaved — a server-only item goes first only when it preceded the next patch
 * item in the original list.
 */
function interleave(fromPatch: unknown[], serverOnly: unknown[], patchOrder: unknown[], originalOrder: unknown[], key: string): unknown[] {
  const byIndexIn = (list: unknown[]) => (a: unknown, b: unknown) => rank(list, a, key) - rank(list, b, key);
  const right = [...fromPatch].sort(byIndexIn(patchOrder));
  const left = [...serverOnly].sort(byIndexIn(originalOrder));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const li = indexOf(originalOrder, left[i], key);
      const ri = indexOf(originalOrder, right[j], key);
      out.push(li >= 0 && ri >= 0 && li < ri ? left[i++] : right[j++]);
    }
  }
  return out;
}

const identity = (item: unknown, key: string) => (key && isMap(item) ? item[key] : item);
const indexOf = (list: unknown[], item: unknown, key: string) =>
  list.findIndex((x) => identity(x, key) === identity(item, key));
const rank = (list: unknown[], item: unknown, key: string) => {
  const i = indexOf(list, item, key);
  return i < 0 ? Number.MAX_SAFE_INTEGER : i;
};

/** All items of both lists must share one JSON type, and lists of lists are not supported. */
function elementShape(...lists: unknown[][]): string {
  let seen: string | undefined;
  for (const item of lists.flat()) {
    const s = shape(item);
    if (s === "array") throw new PatchError("lists of lists are not supported");
    if (seen !== undefined && s !== seen) {
      throw new PatchError(`list element types are not identical: ${goFmt(lists)}`);
    }
    seen = s;
  }
  return seen ?? "none";
}

/**
 * Strips what a patch carries but an object must not: maps marked with `$patch` (upstream
 * drops them, even `replace`, when there is nothing to merge into), directive keys, and nulls.
 * Returns undefined when the value itself is dropped.
 */
function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean).filter((v) => v !== undefined);
  if (!isMap(value)) return value;
  if (has(value, PATCH)) return undefined;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || k === RETAIN_KEYS || k.startsWith(SET_ORDER + "/") || k.startsWith(DELETE_FROM + "/")) continue;
    const c = clean(v);
    if (c !== undefined) put(out, k, c);
  }
  return out;
}

function setOrDelete(o: Obj, key: string, value: unknown): void {
  if (value === undefined) delete o[key];
  else put(o, key, value);
}

/** Plain assignment, except that a "__proto__" key stays data instead of swapping the prototype. */
function put(o: Obj, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
}

function shape(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** `$setElementOrder/containers` → `containers`. */
function directiveField(directiveKey: string, prefix: string): string {
  const slash = directiveKey.indexOf("/");
  if (slash < 0 || directiveKey.slice(0, slash) !== prefix) {
    throw new PatchError(prefix === DELETE_FROM
      ? "invalid patch format of primitive list"
      : "invalid patch format of setElementOrder list");
  }
  return directiveKey.slice(slash + 1);
}

const noMergeKey = (m: Obj, key: string) =>
  new PatchError(`map: ${goFmt(m)} does not contain declared merge key: ${key}`);

const badArgType = (expected: string, actual: unknown) =>
  new PatchError(`expected a ${expected}, but received a ${goTypeName(actual)}`);

function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return "[]interface {}";
  if (isMap(v)) return "map[string]interface {}";
  return typeof v === "number" ? "float64" : typeof v === "boolean" ? "bool" : "string";
}

/** Renders a value like Go's %v, so messages read as upstream's do. */
export function goFmt(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goFmt).join(" ")}]`;
  if (isMap(v)) {
    return `map[${Object.keys(v).sort().map((k) => `${k}:${goFmt(v[k])}`).join(" ")}]`;
  }
  return String(v);
}
