// How a walker treats a node given its type and the value(s) found there: as one leaf value
// (scalars, atomic lists/maps, lists/maps empty on every side, shapes that disagree) or as a
// map/list to descend into.
import type { Atom, ListType, MapType } from "./schema.ts";
import { isMap } from "../util/ismap.ts";

export type Node = { kind: "leaf" } | { kind: "map"; map: MapType } | { kind: "list"; list: ListType };

const LEAF: Node = { kind: "leaf" };

type Shape = "map" | "list" | "scalar" | "none";
const shapeOf = (v: unknown): Shape =>
  v === undefined || v === null ? "none" : Array.isArray(v) ? "list" : isMap(v) ? "map" : "scalar";

function emptyOrNone(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v as object) return false;
  return true;
}

/** `undefined` means absent; `null` is a present null (Go's nil pointer or slice). */
export function classify(atom: Atom, a: unknown, b: unknown): Node {
  const sa = shapeOf(a);
  const sb = shapeOf(b);
  if (sa !== "none" && sb !== "none" && sa !== sb) return LEAF;
  const shape = sa === "none" ? sb : sa;
  if (shape === "map" && atom.map) {
    if (atom.map.atomic || (emptyOrNone(a) && emptyOrNone(b))) return LEAF;
    return atom.map.node ??= { kind: "map", map: atom.map };
  }
  if (shape === "list" && atom.list) {
    if (atom.list.rel === "atomic" || (emptyOrNone(a) && emptyOrNone(b))) return LEAF;
    return atom.list.node ??= { kind: "list", list: atom.list };
  }
  return LEAF;
}

/** Keys of both maps, the left's first, each once. */
export function unionKeys(a: unknown, b: unknown, extra?: Readonly<Record<string, unknown>>): string[] {
  const left = isMap(a) ? a : undefined;
  const keys = left ? Object.keys(left) : [];
  if (isMap(b)) for (const k in b) if (!left || !Object.hasOwn(left, k)) keys.push(k);
  if (extra) for (const k in extra) if (!(left && Object.hasOwn(left, k)) && !(isMap(b) && Object.hasOwn(b, k))) keys.push(k);
  return keys;
}

/**
 * The value at `k`: `undefined` when absent. One lookup, not two (this runs for every key of every map,
 * and maps of 50,000 keys exist): what a JSON object inherits is functions, apart from `__proto__`.
 */
export function at(m: unknown, k: string): unknown {
  if (!isMap(m)) return undefined;
  const v = m[k];
  if (typeof v === "function" || (k === "__proto__" && !Object.hasOwn(m, k))) return undefined;
  return v;
}
