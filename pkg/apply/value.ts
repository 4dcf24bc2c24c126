// JSON value helpers shared by the apply engine: shape tests, equality, the total order
// upstream uses to sort path elements, and Go-flavoured JSON/strings for the wire forms.

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
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
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => has(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Go compares strings bytewise (UTF-8), which is code point order, not UTF-16 unit order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

// Upstream's total order across types: numbers < strings < booleans < lists < maps < null.
const rank = (v: unknown): number =>
  typeof v === "number" ? 0 : typeof v === "string" ? 1 : typeof v === "boolean" ? 2 : Array.isArray(v) ? 3 : isObj(v) ? 4 : 5;

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
  if (isObj(a)) {
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
export function goJSON(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A value as upstream prints it inside a path (`value.ToString`): strings quoted, maps as k=v. */
export function valueString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(",")}]`;
  if (isObj(v)) return Object.entries(v).map(([k, x]) => `${k}=${valueString(x)}`).join("");
  return String(v);
}

/** Drops null-valued map entries; upstream's typed round trip turns them into absent fields. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
  return out;
}
