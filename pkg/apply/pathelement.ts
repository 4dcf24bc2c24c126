// One step of a field path, in upstream's four forms: a struct/map field (`f:`), a keyed
// list item (`k:`), a set item (`v:`) and a positional item (`i:`). The serialized form is
// both the FieldsV1 key and the identity used by sets.
import { ApplyError, compareStrings, compareValues, goJSON, valueString } from "./value.ts";

export type KeyFields = [string, unknown][];
/** `s` is the serialized form, computed once: sets are keyed by it. */
export type PE = ({ f: string } | { k: KeyFields } | { v: unknown } | { i: number }) & { readonly s: string };

// Field elements are immutable and mostly few (field names, label keys): share them. Once the cache is
// full, new names get elements of their own: clearing it would make every pass over a map of more keys
// than it holds rebuild it.
const fields = new Map<string, PE>();
export function fieldPE(f: string): PE {
  let pe = fields.get(f);
  if (!pe) {
    pe = { f, s: `f:${f}` };
    if (fields.size < 50_000) fields.set(f, pe);
  }
  return pe;
}
export const valuePE = (v: unknown): PE => ({ v, s: `v:${goJSON(v)}` });
export const indexPE = (i: number): PE => ({ i, s: `i:${i}` });

/** A key element; fields are sorted by name, as upstream sorts them. */
export function keyOf(fields: KeyFields): PE {
  const k = fields.length > 1 ? [...fields].sort((a, b) => compareStrings(a[0], b[0])) : fields;
  return { k, s: `k:{${k.map(([n, v]) => `${goJSON(n)}:${goJSON(v)}`).join(",")}}` };
}

export const serializePE = (pe: PE): string => pe.s;

export function parsePE(s: string): PE {
  const kind = s.slice(0, 2);
  const rest = s.slice(2);
  try {
    if (kind === "f:") return fieldPE(rest);
    if (kind === "k:") {
      const o = JSON.parse(rest) as Record<string, unknown>;
      return keyOf(Object.entries(o));
    }
    if (kind === "v:") return valuePE(JSON.parse(rest));
    if (kind === "i:" && /^-?\d+$/.test(rest)) return indexPE(Number(rest));
  } catch {
    // fall through to the error below
  }
  throw new ApplyError(`unknown path element: ${s}`);
}

const order = (pe: PE): number => ("f" in pe ? 0 : "k" in pe ? 1 : "v" in pe ? 2 : 3);

/** Upstream's order: fields, then keys, then values, then indexes. */
export function comparePE(a: PE, b: PE): number {
  const oa = order(a);
  const ob = order(b);
  if (oa !== ob) return oa < ob ? -1 : 1;
  if ("f" in a) return compareStrings(a.f, (b as { f: string }).f);
  if ("k" in a) {
    const x = a.k;
    const y = (b as { k: KeyFields }).k;
    for (let i = 0; i < x.length && i < y.length; i++) {
      const c = compareStrings(x[i][0], y[i][0]) || compareValues(x[i][1], y[i][1]);
      if (c !== 0) return c;
    }
    return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
  }
  if ("v" in a) return compareValues(a.v, (b as { v: unknown }).v);
  const d = a.i - (b as { i: number }).i;
  return d === 0 ? 0 : d < 0 ? -1 : 1;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * The keys of `entries` (serialized path elements) in upstream's order. Field elements of names without
 * surrogates, the whole of most maps, sort natively: there UTF-16 order is code point order.
 */
export function sortedKeys(entries: Map<string, PE>): string[] {
  const keys = [...entries.keys()];
  if (keys.every((k) => k.startsWith("f:") && !SURROGATE.test(k))) return keys.sort();
  return [...entries].sort((a, b) => comparePE(a[1], b[1])).map(([k]) => k);
}

/** A path as upstream prints it in conflicts: `.spec.containers[name="nginx"].image`. */
export function pathString(path: PE[]): string {
  return path
    .map((pe) => {
      if ("f" in pe) return `.${pe.f}`;
      if ("k" in pe) return `[${pe.k.map(([n, v]) => `${n}=${valueString(v)}`).join(",")}]`;
      if ("v" in pe) return `[=${valueString(pe.v)}]`;
      return `[${pe.i}]`;
    })
    .join("");
}
