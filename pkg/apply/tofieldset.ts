// The set of fields a value sets (upstream's TypedValue.ToFieldSet): what an applier owns.
// Leaves are members; list items are members too (FieldsV1's `.`); a map key is a member
// when it is null, an empty map, or not a declared field (labels, data, deduced objects).
import { FieldSet } from "./fieldset.ts";
import { listItems } from "./listitems.ts";
import type { PE } from "./pathelement.ts";
import { type Atom, childOf, deduce } from "./schema.ts";
import { isObj } from "./value.ts";

/** `self` tells the parent to record this node's own path. */
function walk(value: unknown, atom: Atom, path: PE[]): { set: FieldSet; self: boolean } {
  const set = new FieldSet();
  const a = deduce(atom, value);
  if (a.map && (value === null || isObj(value))) {
    if (a.map.atomic) return { set, self: true };
    if (value === null) return { set, self: false };
    for (const [k, v] of Object.entries(value)) {
      const pe: PE = { f: k };
      const child = walk(v, childOf(a.map, k), [...path, pe]);
      set.addChild(pe, child.set);
      const emptyMap = isObj(v) && Object.keys(v).length === 0;
      if (child.self || v === null || emptyMap || !a.map.field(k)) set.addMember(pe);
    }
    return { set, self: false };
  }
  if (a.list && (value === null || Array.isArray(value))) {
    if (a.list.rel === "atomic") return { set, self: true };
    if (value === null) return { set, self: false };
    for (const it of listItems(a.list, value, path, "")) {
      set.addChild(it.pe, walk(it.value, a.list.elem(), [...path, it.pe]).set);
      set.addMember(it.pe);
    }
    return { set, self: false };
  }
  // Scalars, and values whose shape the type does not expect, are owned whole.
  return { set, self: true };
}

export function toFieldSet(value: unknown, atom: Atom): FieldSet {
  return walk(value, atom, []).set;
}

/**
 * Adds, as members, the declared fields that only appear as parents in `set`: pruning by such
 * a set removes a struct field (e.g. `spec.strategy`) that nobody owns anything in any more.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, atom: Atom | undefined): FieldSet {
  const out = new FieldSet();
  for (const [k, pe] of set.members) out.members.set(k, pe);
  for (const { pe, set: sub } of set.children.values()) {
    let childAtom: Atom | undefined;
    if ("f" in pe && atom?.map) {
      if (atom.map.field(pe.f)) out.addMember(pe);
      childAtom = childOf(atom.map, pe.f);
    } else if ("k" in pe && atom?.list) {
      childAtom = atom.list.elem();
    }
    out.addChild(pe, ensureNamedFieldsAreMembers(sub, childAtom));
  }
  return out;
}
