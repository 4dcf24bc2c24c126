// Validation of custom objects against their version's openAPIV3Schema, with ajv. The schema is first
// turned into plain JSON Schema (nullable, x-kubernetes-int-or-string); ajv's errors are then written
// as upstream's (kube-openapi's messages wrapped in field errors: `spec.replicas: Invalid value:
// "string": spec.replicas in body must be of type integer: "string"`).
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import type { FieldCause, Obj } from "../registry/types.ts";
import { Errs } from "../validation/field.ts";
import { childPath } from "./structural.ts";
import { isMap } from "../util/ismap.ts";

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, validateSchema: false, verbose: true });
const compiled = new WeakMap<Obj, ValidateFunction>();

/** The OpenAPI v3 subset a CRD may use, as JSON Schema draft 7. */
function toJSONSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toJSONSchema);
  if (!isMap(s)) return s;
  const out: Obj = {};
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith("x-kubernetes-") || k === "nullable" || k === "default" || k === "example") continue;
    if (k === "properties" || k === "patternProperties" || k === "definitions") {
      out[k] = Object.fromEntries(Object.entries(v as Obj).map(([p, ps]) => [p, toJSONSchema(ps)]));
    } else out[k] = toJSONSchema(v);
  }
  if (s["x-kubernetes-int-or-string"] && !out.type) out.type = ["integer", "string"];
  if (s.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  if (s.nullable === true && Array.isArray(out.enum)) out.enum = [...out.enum, null];
  return out;
}

/** JSON Schema's name of a value's type, as kube-openapi reports it. */
function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** `/spec/items/0` → `spec.items[0]`. */
function fieldPath(instancePath: string): string {
  let path = "";
  for (const raw of instancePath.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    path = /^\d+$/.test(seg) ? childPath(path, Number(seg)) : childPath(path, seg);
  }
  return path;
}

/** The detail kube-openapi gives for a failed keyword (`<name> in body should ...`). */
function detail(e: ErrorObject, name: string): string | undefined {
  const p = e.params as Obj;
  const at = `${name} in body`;
  switch (e.keyword) {
    case "minimum": return `${at} should be greater than or equal to ${p.limit}`;
    case "exclusiveMinimum": return `${at} should be greater than ${p.limit}`;
    case "maximum": return `${at} should be less than or equal to ${p.limit}`;
    case "exclusiveMaximum": return `${at} should be less than ${p.limit}`;
    case "minLength": return `${at} should be at least ${p.limit} chars long`;
    case "maxLength": return `${at} should be at most ${p.limit} chars long`;
    case "pattern": return `${at} should match '${p.pattern}'`;
    case "minItems": return `${at} should have at least ${p.limit} items`;
    case "maxItems": return `${at} should have at most ${p.limit} items`;
    case "uniqueItems": return `${at} shouldn't contain duplicates`;
    case "multipleOf": return `${at} should be a multiple of ${p.multipleOf}`;
    case "minProperties": return `${at} should have at least ${p.limit} properties`;
    case "maxProperties": return `${at} should have at most ${p.limit} properties`;
    case "anyOf": return `${at} must validate at least one schema (anyOf)`;
    case "oneOf": return `${at} must validate one and only one schema (oneOf)`;
    case "not": return `${at} must not validate the schema (not)`;
    default: return e.message ? `${at} ${e.message}` : undefined;
  }
}

/** The causes of obj's failures against schema (none when it validates). */
export function validateAgainstSchema(obj: Obj, schema: Obj | undefined): FieldCause[] {
  if (!schema) return [];
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = ajv.compile(toJSONSchema(schema) as Obj)));
  if (check(obj)) return [];
  const errs = new Errs();
  // a compound keyword's failure is reported once, not with the failures of each of its branches
  const compound = (check.errors ?? []).filter((e) => ["anyOf", "oneOf", "not"].includes(e.keyword)).map((e) => e.schemaPath);
  for (const e of check.errors ?? []) {
    if (compound.some((c) => e.schemaPath.startsWith(`${c}/`))) continue;
    const path = fieldPath(e.instancePath);
    const value = e.data;
    const p = e.params as Obj;
    switch (e.keyword) {
      case "type": {
        const want = (Array.isArray(p.type) ? p.type : String(p.type).split(",")).filter((t: string) => t !== "null");
        const actual = typeName(value);
        errs.causes.push({ field: path, reason: "FieldValueTypeInvalid", message: `Invalid value: "${actual}": ${path} in body must be of type ${want.join(",")}: "${actual}"` });
        break;
      }
      case "required": errs.required(childPath(path, String(p.missingProperty))); break;
      case "enum": errs.notSupported(path, value, (p.allowedValues as unknown[]).map((v) => (typeof v === "string" ? v : JSON.stringify(v)))); break;
      default: errs.invalid(path, value, detail(e, path) ?? "");
    }
  }
  return errs.causes;
}
