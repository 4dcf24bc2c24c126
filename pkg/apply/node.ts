// How a walker treats a node given its type and the value(s) found there: as one leaf value
// (scalars, atomic lists/maps, lists/maps empty on every side, shapes that disagree) or as a
// map/list to descend into.
import type { Atom, ListType, MapType } from "./schema.ts";
import { isObj } from "./value.ts";

export type Node = { kind: "leaf" } | { kind: "map"; map: MapType } | { kind: "list"; list: ListType };

const LEAF: Node = { kind: "leaf" };

type Shape = "map" | "list" | "scalar" | "none";
const shapeOf = (v: unknown): Shape =>
  v === undefined || v === null ? "none" : Array.isArray(v) ? "list" : isObj(v) ? "map" : "scalar";

const emptyOrNone = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : isObj(v) && Object.keys(v).length === 0);

/** `undefined` means absent; `null` is a present null (Go's nil pointer or slice). */
export function classify(atom: Atom, ...values: unknown[]): Node {
  let shape: Shape = "none";
  for (const v of values) {
    const s = shapeOf(v);
    if (s === "none") continue;
    if (shape !== "none" && s !== shape) return LEAF;
    shape = s;
  }
  if (shape === "map" && atom.map) {
    if (atom.map.atomic || values.every(emptyOrNone)) return LEAF;
    return { kind: "map", map: atom.map };
  }
  if (shape === "list" && atom.list) {
    if (atom.list.rel === "atomic" || values.every(emptyOrNone)) return LEAF;
    return { kind: "list", list: atom.list };
  }
  return LEAF;
}

/** Keys of both maps, the left's first, each once. */
export function unionKeys(a: unknown, b: unknown, extra?: Iterable<string>): string[] {
  const keys = new Set<string>(isObj(a) ? Object.keys(a) : []);
  if (isObj(b)) for (const k of Object.keys(b)) keys.add(k);
  if (extra) for (const k of extra) keys.add(k);
  return [...keys];
}

/** The value at `k`: `undefined` when absent. */
export const at = (m: unknown, k: string): unknown => (isObj(m) && Object.hasOwn(m, k) ? m[k] : undefined);
