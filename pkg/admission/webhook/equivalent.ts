// A request seen at another version of its resource (matchPolicy Equivalent): the object goes through the
// stored form — the conversion table's rows for built-in kinds (pkg/convert), the apiVersion for a custom
// resource's versions — to the webhook's version, and a mutating webhook's result comes back the same way.
import { upgradeStored } from "../../registry/versions.ts";
import type { Obj, ResourceDef } from "../../registry/types.ts";
import type { Attributes } from "../types.ts";

/** `o`, a `from` object, as a `to` object (the two defs are stored at the same place). */
export function convertBetween(from: ResourceDef, to: ResourceDef, o: Obj): Obj {
  const copy = structuredClone(o);
  const stored = from.codec ? from.codec.toStorage(copy) : copy;
  return to.codec ? to.codec.fromStorage(stored) : upgradeStored(to, stored);
}

/** The attributes as a request for `def`: the same request with its objects converted. */
export function attributesAt(a: Attributes, def: ResourceDef): Attributes {
  if (def === a.def) return a;
  const at = (o: Obj | undefined) => o && convertBetween(a.def, def, o);
  return { ...a, def, object: at(a.object), oldObject: at(a.oldObject) };
}
