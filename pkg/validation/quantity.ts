// Resource quantities ("500m", "1Gi", "2e3"), parsed as upstream's resource.ParseQuantity accepts them.
import type { Errs } from "./field.ts";
import { Undecodable } from "./decode.ts";
import { NEGATIVE } from "./numbers.ts";
import { parseQuantity } from "../util/quantity.ts";
import { canonicalQuantity } from "./quantity-format.ts";

export { parseQuantity };

/** The message upstream's decoder gives for a string that is not a quantity. */
export const QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

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

/** A quantity as upstream's messages show it: in canonical form ("2000m" is "2"). */
export const quantityText = (v: unknown) => canonicalQuantity(v) ?? String(v);

/** ValidateResourceQuantityValue: a quantity ≥ 0 (and > 0 with `positive`); returns its value. */
export function nonNegativeQuantity(e: Errs, field: string, v: unknown, positive = false): number {
  const n = quantity(v);
  if (n < 0) e.invalid(field, quantityText(v), NEGATIVE);
  else if (positive && n === 0) e.invalid(field, quantityText(v), "must be greater than zero");
  return n;
}
