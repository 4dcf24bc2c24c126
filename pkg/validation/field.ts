// Field errors in upstream's words (apimachinery's field.Error): each becomes one 422 cause.
import type { FieldCause } from "../registry/types.ts";

/** A bad value already written as upstream prints it (Go's %#v of a map or struct). */
export class Printed { constructor(readonly text: string) {} }

/** How upstream prints a bad value: strings quoted, numbers and booleans bare, null as null. */
export function showValue(v: unknown): string {
  if (v instanceof Printed) return v.text;
  if (v === undefined || v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** `[]string{"a", "b"}`, as %#v prints a string slice (`[]string(nil)` when absent). */
export const goStrings = (v: unknown, type = "string") =>
  Array.isArray(v) ? `[]${type}{${v.map((s) => JSON.stringify(s)).join(", ")}}` : `[]${type}(nil)`;

/** A label map as %#v prints it: `map[string]string{"app":"web"}`, keys sorted. */
export function goStringMap(m: Record<string, string> | undefined): string {
  if (!m) return "map[string]string(nil)";
  return `map[string]string{${Object.keys(m).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`).join(", ")}}`;
}

/** An IntOrString as %#v prints it. */
export const goIntOrString = (v: unknown) =>
  new Printed(typeof v === "string" ? `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}` : `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`);

/** Collects the causes of one object's validation; paths are written as upstream writes them. */
export class Errs {
  readonly causes: FieldCause[] = [];
  private add(field: string, reason: string, message: string) { this.causes.push({ field, reason, message }); }

  required(field: string, detail = "") { this.add(field, "FieldValueRequired", `Required value${detail ? `: ${detail}` : ""}`); }
  invalid(field: string, value: unknown, detail: string) { this.add(field, "FieldValueInvalid", `Invalid value: ${showValue(value)}${detail ? `: ${detail}` : ""}`); }
  notSupported(field: string, value: unknown, valid: string[]) {
    this.add(field, "FieldValueNotSupported", `Unsupported value: ${showValue(value)}${valid.length ? `: supported values: ${valid.map((s) => JSON.stringify(s)).join(", ")}` : ""}`);
  }
  notFound(field: string, value: unknown) { this.add(field, "FieldValueNotFound", `Not found: ${showValue(value)}`); }
  duplicate(field: string, value: unknown) { this.add(field, "FieldValueDuplicate", `Duplicate value: ${showValue(value)}`); }
  forbidden(field: string, detail: string) { this.add(field, "FieldValueForbidden", `Forbidden: ${detail}`); }
  tooLong(field: string, max: number) { this.add(field, "FieldValueTooLong", `Too long: must have at most ${max} bytes`); }
  tooMany(field: string, actual: number, max: number) { this.add(field, "FieldValueTooMany", `Too many: ${actual}: must have at most ${max} items`); }
  immutable(field: string, value: unknown) { this.invalid(field, value, "field is immutable"); }
  /** One Invalid cause per message of a check (`dns1123Label(v)`, ...). */
  invalidEach(field: string, value: unknown, messages: string[]) { for (const m of messages) this.invalid(field, value, m); }

  /** Runs `fn` on every error list item under a sub-path (`spec.containers[0]`). */
  each<T>(field: string, items: unknown, fn: (item: T, path: string, i: number) => void) {
    if (!Array.isArray(items)) return;
    items.forEach((it, i) => fn(it as T, `${field}[${i}]`, i));
  }
}
