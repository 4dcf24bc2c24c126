// Go's strict JSON decoding of a configuration file, by shape: an unknown field or a value of the wrong
// type is an error naming the field, in the words of Go's decoder. Shared by the component configs.
import { parseDuration } from "./duration.ts";

export type Shape = "string" | "int" | "float" | "bool" | "duration" | "any" | { [field: string]: Shape } | [Shape];

/** A field the config's types do not have, or of the wrong type. */
export class StrictError extends Error {}

const GO_TYPES: Record<string, string> = { string: "string", int: "int32", float: "float32", bool: "bool", duration: "v1.Duration" };
export const jsonType = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v);

/** A map with values of one shape (Go's map[string]T) is written as { "*": T }. */
export function checkShape(v: unknown, shape: Shape, path: string): void {
  if (v === null || shape === "any") return; // null is the zero value, as Go's decoder reads it
  const wrong = (want: string) => new StrictError(`cannot unmarshal ${jsonType(v)} into field "${path}" of type ${want}`);
  if (Array.isArray(shape)) {
    if (!Array.isArray(v)) throw wrong(`[]${typeof shape[0] === "string" ? GO_TYPES[shape[0]] ?? "object" : "object"}`);
    v.forEach((item, i) => checkShape(item, shape[0], `${path}[${i}]`));
    return;
  }
  if (typeof shape === "object") {
    if (jsonType(v) !== "object") throw wrong("object");
    for (const [k, fv] of Object.entries(v as Record<string, unknown>)) {
      const at = path ? `${path}.${k}` : k;
      const field = k in shape ? shape[k] : shape["*"];
      if (field === undefined) throw new StrictError(`unknown field "${at}"`);
      checkShape(fv, field, at);
    }
    return;
  }
  switch (shape) {
    case "string": if (typeof v !== "string") throw wrong("string"); return;
    case "bool": if (typeof v !== "boolean") throw wrong("bool"); return;
    case "int": if (typeof v !== "number" || !Number.isInteger(v)) throw wrong(GO_TYPES.int); return;
    case "float": if (typeof v !== "number") throw wrong(GO_TYPES.float); return;
    case "duration":
      if (typeof v !== "string") throw wrong(GO_TYPES.duration);
      try { parseDuration(v); } catch { throw new StrictError(`time: invalid duration ${JSON.stringify(v)}`); }
  }
}
