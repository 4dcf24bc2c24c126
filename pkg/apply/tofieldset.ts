// The set of fields a value sets (upstream's TypedValue.ToFieldSet): what an applier owns.
// Leaves are members; list items are members too (FieldsV1's `.`); a map key is a member
// when it is null, an empty map, or not a declared field (labels, data, deduced objects).
import { FieldSet } from "./fieldset.ts";
import { listItems } from "./listitems.ts";
import { type PE, fieldPE } from "./pathelement.ts";
import { type Atom, childOf } from "./schema.ts";
import { isMap } from "../util/ismap.ts";

const SELF = true;

/**
 * The fields below `value`: SELF when the node is owned whole (the parent records its path),
 * else its children's set, if any. `path` is a stack shared by the walk (for errors).
 */
function walk(value: unknown, atom: Atom, path: PE[]): FieldSet | typeof SELF | undefined {
  const map = atom.map;
  if (map && (value === null || isMap(value))) {
    if (map.atomic) return SELF;
    if (value === null) return undefined;
    const set = new FieldSet();
    for (const k in value) {
      const v = value[k];
      const pe = fieldPE(k);
      path.push(pe);
      const child = walk(v, childOf(map, k), path);
      path.pop();
      if (child === SELF || v === null || isEmptyMap(v) || !map.field(k)) set.addMember(pe);
      if (child instanceof FieldSet) set.addChild(pe, child);
    }
    return set;
  }
  const list = atom.list;
  if (list && (value === null || Array.isArray(value))) {
    if (list.rel === "atomic") return SELF;
    if (value === null) return undefined;
    const set = new FieldSet();
    for (const it of listItems(list, value, path, "")) {
      path.push(it.pe);
      const child = walk(it.value, list.elem(), path);
      path.pop();
      set.addMember(it.pe);
      if (child instanceof FieldSet) set.addChild(it.pe, child);
    }
    return set;
  }
  // Scalars, and values whose shape the type does not expect, are owned whole.
  return SELF;
}

const isEmptyMap = (v: unknown): boolean => {
  if (!isMap(v)) return false;
  for (const _ in v) return false;
  return true;
};

export function toFieldSet(value: unknown, atom: Atom): FieldSet {
  const s = walk(value, atom, []);
  return s instanceof FieldSet ? s : new FieldSet();
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
