// The PodSecurityPolicy checks' refusals as upstream's field errors print (`path: Invalid value: v: detail`).
import { Printed, showValue } from "../../validation/field.ts";

export const invalid = (path: string, value: unknown, detail: string) => `${path}: Invalid value: ${showValue(value)}${detail ? `: ${detail}` : ""}`;
export const required = (path: string, detail: string) => `${path}: Required value${detail ? `: ${detail}` : ""}`;
export const forbidden = (path: string, detail: string) => `${path}: Forbidden: ${detail}`;

/** %#v of a Go slice: `[]int64{1, 2}`, `[]int64(nil)`. */
export const goSlice = (type: string, v: unknown[] | undefined, quote = false) =>
  new Printed(v ? `[]${type}{${v.map((x) => (quote ? JSON.stringify(x) : String(x))).join(", ")}}` : `[]${type}(nil)`);
