// Small helpers the defaulters share. Bodies reach the defaulters after their types were checked
// (checkBody), but a field may still be absent or null, which upstream's decoding reads as unset.
import type { Obj } from "../registry/types.ts";
import { isMap } from "../util/ismap.ts";


/** The object under o[k], created empty when unset (a Go struct field, which is never absent). */
export function child(o: Obj, k: string): Obj {
  if (!isMap(o[k])) o[k] = {};
  return o[k];
}

/** The object under o[k] when there is one. */
export const sub = (o: Obj | undefined, k: string): Obj | undefined => (isMap(o?.[k]) ? o![k] : undefined);

/** The objects of the list under o[k] (none when unset). */
export const items = (o: Obj | undefined, k: string): Obj[] => (Array.isArray(o?.[k]) ? (o![k] as unknown[]).filter(isMap) : []);

/** Sets each unset (absent or null) field: upstream's pointer fields. */
export function fill(o: Obj, values: Obj): void {
  for (const k in values) o[k] ??= values[k];
}

/** Sets each field holding Go's zero value ("" or 0) too: upstream's plain string and number fields. */
export function fillZero(o: Obj, values: Obj): void {
  for (const k in values) if (o[k] === undefined || o[k] === null || o[k] === "" || o[k] === 0) o[k] = values[k];
}

/** A map with no keys counts as unset, as Go's len(map) == 0. */
export const isEmptyMap = (v: unknown) => !isMap(v) || Object.keys(v).length === 0;
