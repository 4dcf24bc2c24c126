// JSON value helpers shared by the apply engine: shape tests, equality, the total order
// upstream uses to sort path elements, and Go-flavoured JSON/strings for the wire forms.

import { isMap } from "../util/ismap.ts";

export type Obj = Record<string, unknown>;

export const has = (o: object, k: string): boolean => Object.hasOwn(o, k);
export const isScalar = (v: unknown): boolean => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/** An error of the apply engine; `status` is the HTTP code the caller should answer with. */
export class ApplyError extends Error {
  override name = "ApplyError";
  constructor(message: string, readonly status = 500) {
    super(message);
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => has(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

// UTF-16 units in code point order: surrogates (U+D800-DFFF) sort after U+E000-FFFF.
const unitRank = (c: number): number => (c < 0xd800 ? c : c >= 0xe000 ? c - 0x800 : c + 0x2000);

/** Go compares strings bytewise (UTF-8), which is code point order, not UTF-16 unit order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitRank(x) < unitRank(y) ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

// Upstream's total order across types: numbers < strings < booleans < lists < maps < null.
const rank = (v: unknown): number =>
  typeof v === "number" ? 0 : typeof v === "string" ? 1 : typeof v === "boolean" ? 2 : Array.isArray(v) ? 3 : isMap(v) ? 4 : 5;

export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === "number") return a === b ? 0 : a < (b as number) ? -1 : 1;
  if (typeof a === "string") return compareStrings(a, b as string);
  if (typeof a === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a)) {
    const l = b as unknown[];
    for (let i = 0; i < a.length && i < l.length; i++) {
      const c = compareValues(a[i], l[i]);
      if (c !== 0) return c;
    }
    return a.length === l.length ? 0 : a.length < l.length ? -1 : 1;
  }
  if (isMap(a)) {
    const m = b as Obj;
    const ka = Object.keys(a).sort(compareStrings);
    const kb = Object.keys(m).sort(compareStrings);
    for (let i = 0; i < ka.length && i < kb.length; i++) {
      const c = compareStrings(ka[i], kb[i]) || compareValues(a[ka[i]], m[kb[i]]);
      if (c !== 0) return c;
    }
    return ka.length === kb.length ? 0 : ka.length < kb.length ? -1 : 1;
  }
  return 0;
}

/** JSON as Go's encoder writes it: HTML-sensitive characters and line separators escaped. */
const HTML_UNSAFE = /[<>&\u2028\u2029]/;

// Printable ASCII needing no escape: the common case, quoted without JSON.stringify.
function plain(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) return false;
  }
  return true;
}
export function goJSON(v: unknown): string {
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v === "string" && plain(v)) return `"${v}"`;
  const s = JSON.stringify(v);
  return HTML_UNSAFE.test(s) ? s.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : s;
}

/** A value as upstream prints it inside a path (`value.ToString`): strings quoted, maps as k=v. */
export function valueString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(",")}]`;
  if (isMap(v)) return Object.entries(v).map(([k, x]) => `${k}=${valueString(x)}`).join("");
  return String(v);
}

/** A deep copy of a JSON value (much cheaper than structuredClone for plain data). */
export function cloneJSON<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneJSON) as T;
  if (!isMap(v)) return v;
  const out: Obj = {};
  for (const k in v) out[k] = cloneJSON(v[k]);
  return out as T;
}

/** Drops null-valued map entries; upstream's typed round trip turns them into absent fields. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isMap(v)) return v;
  const out: Obj = {};
  for (const k in v) {
    const x = v[k];
    if (x !== null) out[k] = dropNulls(x);
  }
  return out;
}
