// Which fields a write adds, modifies and removes (upstream's TypedValue.Compare). Leaves
// are compared by value; a map, list or list item that appears or disappears as a whole is
// recorded too, which is where FieldsV1's `.` entries of Update operations come from.
// Fields a Go object always carries (present.ts) count as present on both sides.
import { FieldSet } from "./fieldset.ts";
import { listItems } from "./listitems.ts";
import { at, classify, unionKeys } from "./node.ts";
import { type PE, fieldPE } from "./pathelement.ts";
import { type Atom, type MapType, childOf } from "./schema.ts";
import { deepEqual } from "./value.ts";

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function compareObjects(oldObj: unknown, newObj: unknown, atom: Atom): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walk(oldObj, newObj, atom, [], c);
  return c;
}

export function isSame(c: Comparison): boolean {
  return c.added.isEmpty() && c.modified.isEmpty() && c.removed.isEmpty();
}

/** Drops every path at or below `fields` from the comparison. */
export function excludeFields(c: Comparison, fields: FieldSet | undefined): Comparison {
  if (!fields || fields.isEmpty()) return c;
  return {
    added: c.added.recursiveDifference(fields),
    modified: c.modified.recursiveDifference(fields),
    removed: c.removed.recursiveDifference(fields),
  };
}

function walk(lhs: unknown, rhs: unknown, atom: Atom, path: PE[], c: Comparison): void {
  if (lhs === undefined && rhs === undefined) return;
  const node = classify(atom, lhs, rhs);
  if (node.kind === "leaf") {
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (!deepEqual(lhs, rhs)) c.modified.insert(path);
    return;
  }
  if (node.kind === "map") {
    const present = node.map.present;
    for (const k of unionKeys(lhs, rhs, present)) {
      path.push(fieldPE(k));
      walk(side(lhs, k, node.map), side(rhs, k, node.map), childOf(node.map, k), path, c);
      path.pop();
    }
  } else {
    const list = node.list;
    const left = listItems(list, Array.isArray(lhs) ? lhs : [], path, "lhs: ");
    const right = listItems(list, Array.isArray(rhs) ? rhs : [], path, "rhs: ");
    const byKey = new Map(right.map((it) => [it.key, it.value]));
    const seen = new Set(left.map((it) => it.key));
    for (const it of left) {
      path.push(it.pe);
      walk(it.value, byKey.get(it.key), list.elem(), path, c);
      path.pop();
    }
    for (const it of right) {
      if (seen.has(it.key)) continue;
      path.push(it.pe);
      walk(undefined, it.value, list.elem(), path, c);
      path.pop();
    }
  }
  // The container itself appeared or went away.
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

// `path` is one stack shared by the whole walk (pushed and popped around each descent).

// A field Go always serializes is present (as {} or null) wherever its parent is.
function side(parent: unknown, k: string, map: MapType): unknown {
  const v = at(parent, k);
  if (v !== undefined || parent === undefined || parent === null) return v;
  const kind = map.present?.[k];
  return kind === "map" ? {} : kind === "list" ? null : undefined;
}
