// Counts and int-or-percent values, as upstream's ValidateNonnegativeField and ValidatePositiveIntOrPercent word them.
import { type Errs, goIntOrString } from "./field.ts";
import { int } from "./decode.ts";

export const NEGATIVE = "must be greater than or equal to 0";

/** ValidateNonnegativeField for an optional integer (a string or a fraction fails the decode). */
export function nonNegative(e: Errs, field: string, v: unknown) {
  const n = int(v, field);
  if (n !== undefined && n < 0) e.invalid(field, n, NEGATIVE);
}

const PERCENT = /^[0-9]+%$/;

/** The number in an int-or-percent (`25%` is 25), 0 when it has none, as upstream reads it. */
export const intOrPercentValue = (v: unknown) => (typeof v === "number" ? v : Number.parseInt(String(v).replace(/%/g, ""), 10) || 0);

/** ValidatePositiveIntOrPercent. */
export function positiveIntOrPercent(e: Errs, field: string, v: unknown) {
  if (typeof v === "string") {
    if (!PERCENT.test(v)) e.invalid(field, goIntOrString(v), "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
  } else if (typeof v === "number") {
    if (v < 0) e.invalid(field, v, NEGATIVE);
  }
  else e.invalid(field, goIntOrString(v), "must be an integer or percentage (e.g '5%')");
}

/** IsNotMoreThan100Percent. */
export function notMoreThan100Percent(e: Errs, field: string, v: unknown) {
  if (typeof v === "string" && PERCENT.test(v) && intOrPercentValue(v) > 100) e.invalid(field, goIntOrString(v), "must not be greater than 100%");
}
