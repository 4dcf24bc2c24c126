// Resource quantities ("500m", "1Gi", "2e3"), parsed as upstream's resource.ParseQuantity accepts them.
import type { Errs } from "./field.ts";
import { Undecodable } from "./decode.ts";
import { NEGATIVE } from "./numbers.ts";

/** The message upstream's decoder gives for a string that is not a quantity. */
export const QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const SHAPE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const SUFFIX: Record<string, number> = {
  "": 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The value of a quantity in base units (cores, bytes), or null when upstream would refuse it. */
export function parseQuantity(q: unknown): number | null {
  if (typeof q === "number") return Number.isFinite(q) ? q : null;
  if (typeof q !== "string") return null;
  const m = SHAPE.exec(q);
  if (!m) return null;
  const [, num, suffix] = m;
  if ((num.match(/\./g)?.length ?? 0) > 1 || !/[0-9]/.test(num)) return null;
  let scale: number;
  if (suffix in SUFFIX) scale = SUFFIX[suffix];
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) scale = 10 ** Number(suffix.slice(1));
  else return null;
  return Number(num) * scale;
}

/** Parsed quantities: manifests repeat a few strings ("100m", "128Mi") endlessly. */
const parsed = new Map<unknown, number | null>();

/** A resource quantity's value; a string upstream cannot parse fails the decode (a 400). */
export function quantity(v: unknown): number {
  let q = parsed.get(v);
  if (q === undefined) {
    q = parseQuantity(v);
    if (parsed.size >= 4096) parsed.clear();
    parsed.set(v, q);
  }
  if (q === null) throw new Undecodable(QUANTITY_FORMAT);
  return q;
}

/** ValidateResourceQuantityValue: a quantity ≥ 0 (and > 0 with `positive`); returns its value. */
export function nonNegativeQuantity(e: Errs, field: string, v: unknown, positive = false): number {
  const n = quantity(v);
  if (n < 0) e.invalid(field, String(v), NEGATIVE);
  else if (positive && n === 0) e.invalid(field, String(v), "must be greater than zero");
  return n;
}
