// How a list item is named in a path: by its key fields (list-type map), by its value
// (list-type set) or by its position. Shared by every walker so they agree on identity.
import { type PE, indexPE, keyOf, pathString, valuePE } from "./pathelement.ts";
import type { ListType } from "./schema.ts";
import { ApplyError, isScalar } from "./value.ts";
import { isMap } from "../util/ismap.ts";

// A key field the client left out takes its schema default. The port lists' `protocol`
// defaults to TCP upstream (`+default="TCP"`); the hand-written schemas do not record it.
const BUILTIN_KEY_DEFAULTS: Record<string, unknown> = { protocol: "TCP" };

const where = (path: PE[], index: number) => `${pathString(path)}: element ${index}`;

export function itemPE(list: ListType, item: unknown, index: number, path: PE[]): PE {
  if (list.rel !== "associative") return indexPE(index);
  if (list.keys.length === 0) {
    if (!isScalar(item)) {
      const what = item === null ? "an explicit null" : isMap(item) ? "a map type" : "a list";
      throw new ApplyError(`${where(path, index)}: associative list without keys has an element that's ${what}`, 400);
    }
    return valuePE(item);
  }
  if (!isMap(item)) throw new ApplyError(`${where(path, index)}: associative list with keys may not have non-map elements`, 400);
  const elemMap = list.elem().map;
  const fields: [string, unknown][] = [];
  for (const name of list.keys) {
    let v = Object.hasOwn(item, name) ? item[name] : elemMap?.defaultOf(name);
    if (v === undefined) v = BUILTIN_KEY_DEFAULTS[name];
    if (v === undefined) {
      throw new ApplyError(
        `${where(path, index)}: associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`,
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
  for (let i = 0; i < items.length; i++) {
    const value = items[i];
    const pe = itemPE(list, value, i, path);
    const key = pe.s;
    if (seen.has(key)) {
      throw new ApplyError(`${pathString(path)}: ${side}duplicate entries for key ${pathString([pe])}`, 400);
    }
    seen.add(key);
    out.push({ pe, key, value });
  }
  return out;
}
