// Merges an applied configuration into the live object by type: maps key by key, associative
// lists item by item (live order first, then new items in the config's order), and every
// leaf (scalar, atomic list or map) replaced by the config's value.
import { at, classify, unionKeys } from "./node.ts";
import { listItems } from "./listitems.ts";
import { type PE, fieldPE } from "./pathelement.ts";
import { type Atom, childOf } from "./schema.ts";
import type { Obj } from "./value.ts";

/** `path` is a stack shared by the walk, used for error messages. */
export function mergeValue(lhs: unknown, rhs: unknown, atom: Atom, path: PE[] = []): unknown {
  const node = classify(atom, lhs, rhs);
  if (node.kind === "leaf") return rhs !== undefined ? rhs : lhs;
  if (node.kind === "map") {
    const out: Obj = {};
    for (const k of unionKeys(lhs, rhs)) {
      path.push(fieldPE(k));
      const v = mergeValue(at(lhs, k), at(rhs, k), childOf(node.map, k), path);
      path.pop();
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  const list = node.list;
  const left = listItems(list, Array.isArray(lhs) ? lhs : [], path, "lhs: ");
  const right = listItems(list, Array.isArray(rhs) ? rhs : [], path, "rhs: ");
  const byKey = new Map(right.map((it) => [it.key, it.value]));
  const seen = new Set(left.map((it) => it.key));
  const out: unknown[] = [];
  for (const it of left) {
    path.push(it.pe);
    out.push(mergeValue(it.value, byKey.get(it.key), list.elem(), path));
    path.pop();
  }
  for (const it of right) {
    if (seen.has(it.key)) continue;
    path.push(it.pe);
    out.push(mergeValue(undefined, it.value, list.elem(), path));
    path.pop();
  }
  return out;
}
