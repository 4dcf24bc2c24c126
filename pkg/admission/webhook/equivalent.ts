// A request seen at another version of its resource (matchPolicy Equivalent): the object goes through the
// stored form — the conversion table's rows for built-in kinds (pkg/convert), the apiVersion or the
// conversion webhook for a custom resource's versions — to the webhook's version, and a mutating webhook's
// result comes back the same way.
import { upgradeStored } from "../../registry/versions.ts";
import type { Obj, ResourceDef } from "../../registry/types.ts";
import type { Attributes } from "../types.ts";

async function toStorage(d: ResourceDef, o: Obj): Promise<Obj> {
  if (d.asyncCodec) return (await d.asyncCodec.toStorage([o]))[0];
  return d.codec ? d.codec.toStorage(o) : o;
}

async function fromStorage(d: ResourceDef, o: Obj): Promise<Obj> {
  if (d.asyncCodec) return (await d.asyncCodec.fromStorage([o]))[0];
  return d.codec ? d.codec.fromStorage(o) : upgradeStored(d, o);
}

/** `o`, a `from` object, as a `to` object (the two defs are stored at the same place). */
export async function convertBetween(from: ResourceDef, to: ResourceDef, o: Obj): Promise<Obj> {
  return fromStorage(to, await toStorage(from, structuredClone(o)));
}

/** The attributes as a request for `def`: the same request with its objects converted. */
export async function attributesAt(a: Attributes, def: ResourceDef): Promise<Attributes> {
  if (def === a.def) return a;
  const at = (o: Obj | undefined) => (o ? convertBetween(a.def, def, o) : undefined);
  return { ...a, def, object: await at(a.object), oldObject: await at(a.oldObject) };
}
