// How a list item is named in a path: by its key fields (list-type map), by its value
// (list-type set) or by its position. Shared by every walker so they agree on identity.
import { type PE, keyOf, pathString, serializePE } from "./pathelement.ts";
import type { ListType } from "./schema.ts";
import { ApplyError, isObj, isScalar } from "./value.ts";

// A key field the client left out takes its schema default. The port lists' `protocol`
// defaults to TCP upstream (`+default="TCP"`); the hand-written schemas do not record it.
const BUILTIN_KEY_DEFAULTS: Record<string, unknown> = { protocol: "TCP" };

export function itemPE(list: ListType, item: unknown, index: number, path: PE[]): PE {
  const where = () => `${pathString(path)}: element ${index}`;
  if (list.rel !== "associative") return { i: index };
  if (list.keys.length === 0) {
    if (!isScalar(item)) {
      const what = item === null ? "an explicit null" : isObj(item) ? "a map type" : "a list";
      throw new ApplyError(`${where()}: associative list without keys has an element that's ${what}`, 400);
    }
    return { v: item };
  }
  if (!isObj(item)) throw new ApplyError(`${where()}: associative list with keys may not have non-map elements`, 400);
  const elemMap = list.elem().map;
  const fields: [string, unknown][] = [];
  for (const name of list.keys) {
    let v = Object.hasOwn(item, name) ? item[name] : elemMap?.defaultOf(name);
    if (v === undefined) v = BUILTIN_KEY_DEFAULTS[name];
    if (v === undefined) {
      throw new ApplyError(
        `${where()}: associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`,
        400,
      );
    }
    fields.push([name, v]);
  }
  return keyOf(fields);
}

export interface Item {
  pe: PE;
  key: string;
  value: unknown;
}

/** The items of a list with their path elements; two items with one identity are an error. */
export function listItems(list: ListType, items: unknown[], path: PE[], side: string): Item[] {
  const seen = new Set<string>();
  const out: Item[] = [];
  items.forEach((value, i) => {
    const pe = itemPE(list, value, i, path);
    const key = serializePE(pe);
    if (seen.has(key)) {
      throw new ApplyError(`${pathString(path)}: ${side}duplicate entries for key ${pathString([pe])}`, 400);
    }
    seen.add(key);
    out.push({ pe, key, value });
  });
  return out;
}
