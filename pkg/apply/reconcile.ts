// Rule 9: when a list or map became atomic in the schema, whoever owned any part of it now
// owns the whole value. (The opposite change infers nothing, as the spec says.)
import { FieldSet } from "./fieldset.ts";
import { type Atom, childOf } from "./schema.ts";

// Upstream looks at a type's map part first, then scalar, then list.
function isAtomic(atom: Atom): boolean {
  if (atom.map) return atom.map.atomic;
  if (atom.scalar) return false;
  return atom.list?.rel === "atomic";
}

/** `set` with every subtree below an atomic value collapsed into that value; same set if none. */
export function reconcileWithSchema(set: FieldSet, atom: Atom): FieldSet {
  let out: FieldSet | undefined;
  for (const [key, { pe, set: sub }] of set.children) {
    let childAtom: Atom | undefined;
    if ("f" in pe) childAtom = atom.map ? childOf(atom.map, pe.f) : undefined;
    else childAtom = atom.list?.elem();
    if (!childAtom) continue;
    const fixed = isAtomic(childAtom) ? undefined : reconcileWithSchema(sub, childAtom);
    if (fixed === sub) continue;
    out ??= set.union(new FieldSet());
    out.children.delete(key);
    if (fixed) out.addChild(pe, fixed);
    else out.addMember(pe);
  }
  return out ?? set;
}
