// Query parameters read as upstream's parameter codec reads them into its option structs
// (apimachinery's string conversions): the first value counts, and a bad number is a 400 in Go's words.
import { badRequest } from "./status.ts";

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** A boolean parameter: absent is undefined; "0" and "false" (any case) are false; any other value, even "", is true. */
export function boolParam(p: URLSearchParams, name: string): boolean | undefined {
  const v = p.get(name);
  if (v === null) return undefined;
  return v !== "0" && v.toLowerCase() !== "false";
}

/** An integer parameter as strconv.ParseInt(v, 10, 64) reads it; absent is undefined. */
export function int64Param(p: URLSearchParams, name: string): bigint | undefined {
  const v = p.get(name);
  return v === null ? undefined : parseInt64(v);
}

export function parseInt64(v: string): bigint {
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n > INT64_MAX || n < INT64_MIN) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}
