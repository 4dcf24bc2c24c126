// Removes the fields of a set from a value (upstream's TypedValue.RemoveItems): a member
// removes the whole field or list item, a child descends. Atomic values are never entered.
import type { FieldSet } from "./fieldset.ts";
import { listItems } from "./listitems.ts";
import { type PE, fieldPE } from "./pathelement.ts";
import { type Atom, childOf } from "./schema.ts";
import { type Obj } from "./value.ts";
import { isMap } from "../util/ismap.ts";

const isEmpty = (v: unknown): boolean =>
  (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

export function removeItems(value: unknown, set: FieldSet, atom: Atom, path: PE[] = []): unknown {
  if (set.isEmpty()) return value;
  const a = atom;
  if (a.map && isMap(value) && !a.map.atomic) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) {
      const pe = fieldPE(k);
      if (set.hasMember(pe)) continue;
      const sub = set.withPrefix(pe);
      if (sub.isEmpty()) {
        out[k] = v;
        continue;
      }
      path.push(pe);
      const next = removeItems(v, sub, childOf(a.map, k), path);
      path.pop();
      // Upstream leaves an emptied value null, which Go turns into an absent field, or into
      // `{}` for the non-pointer structs that it always serializes.
      if (!isEmpty(next) || isEmpty(v)) out[k] = next;
      else if (a.map.present?.[k] === "map") out[k] = {};
    }
    return out;
  }
  if (a.list && Array.isArray(value) && a.list.rel !== "atomic") {
    const out: unknown[] = [];
    for (const it of listItems(a.list, value, path, "")) {
      if (set.hasMember(it.pe)) continue;
      const sub = set.withPrefix(it.pe);
      if (sub.isEmpty()) {
        out.push(it.value);
        continue;
      }
      path.push(it.pe);
      out.push(removeItems(it.value, sub, a.list.elem(), path));
      path.pop();
    }
    return out;
  }
  return value;
}
