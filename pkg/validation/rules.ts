// Small helpers shared by the validators of kinds-other.ts: lenient readers of a decoded object, Go's notion
// of an empty value, enums and immutable fields.
import { isMap } from "../util/ismap.ts";
import { Errs } from "./field.ts";

export { isMap };
export const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);
export const has = (v: unknown): boolean => v !== undefined && v !== null;
/** Go's empty value: what upstream's typed fields make of absent, null, "" and 0. */
export const empty = (v: unknown) => !has(v) || v === "" || v === 0 || (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

/** Deep equality that treats absent, null and empty maps and lists alike, as a stored round trip does. */
export function same(a: unknown, b: unknown): boolean {
  if (empty(a) && empty(b) && typeof a !== "boolean" && typeof b !== "boolean") return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => same(a[k], b[k]));
  }
  return a === b;
}

/** A required enum; absent values that upstream's defaulting fills in are left to it (`defaulted`). */
export function oneOf(e: Errs, field: string, v: unknown, values: string[], opts: { defaulted?: boolean; required?: boolean } = {}) {
  if (!has(v) || v === "") {
    if (opts.required && !(opts.defaulted && !has(v))) e.required(field);
    return;
  }
  if (!values.includes(v as string)) e.notSupported(field, v, values);
}

/** ValidateImmutableField. */
export function immutable(e: Errs, field: string, now: unknown, was: unknown) {
  if (!same(now, was)) e.immutable(field, now ?? null);
}

/** A validator run over a fresh Errs. */
export const run = (fn: (e: Errs) => void) => {
  const e = new Errs();
  fn(e);
  return e.causes;
};
