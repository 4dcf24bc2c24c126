// JSON objects → protobuf message bodies, walking the plans built from Kite's .proto files; a value of the
// wrong type is a ProtobufError naming the field.
import { ProtobufError } from "./errors.ts";
import { parseGoDuration, parseTime } from "./gotime.ts";
import { Scalar, WIRE_OF_SCALAR, type FieldPlan, type MessagePlan } from "./schema.ts";
import { WIRE_LEN, type Writer } from "./wire.ts";
import { isMap } from "../util/ismap.ts";

type Obj = Record<string, unknown>;
const utf8 = new TextEncoder();

const describe = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
function badValue(plan: MessagePlan, field: string, want: string, v: unknown): ProtobufError {
  return new ProtobufError(`cannot encode ${plan.name.slice(plan.name.lastIndexOf(".") + 1)}.${field}: expected ${want}, got ${describe(v)}`);
}

/** Writes the fields of `obj` (its JSON form) as the body of message `plan`, in field-number order. */
export function encodeFields(w: Writer, plan: MessagePlan, obj: Obj): void {
  const fields = plan.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.inline) {
      const start = w.pos;
      w.uint32(f.key);
      const mark = w.begin();
      const body = w.pos;
      encodeFields(w, f.msg!, obj);
      if (w.pos === body) w.pos = start;
      else w.end(mark);
      continue;
    }
    const v = obj[f.json];
    if (v === undefined || v === null) continue;
    if (f.map) encodeMap(w, plan, f, v);
    else if (f.repeated) {
      if (!Array.isArray(v)) throw badValue(plan, f.json, "an array", v);
      for (let j = 0; j < v.length; j++) {
        w.uint32(f.key);
        encodeValue(w, plan, f, v[j]);
      }
    } else {
      w.uint32(f.key);
      encodeValue(w, plan, f, v);
    }
  }
}

/** Writes one value (after its key): a scalar, or a length-delimited message. */
function encodeValue(w: Writer, plan: MessagePlan, f: FieldPlan, v: unknown): void {
  if (f.scalar) return encodeScalar(w, plan, f, v);
  const mark = w.begin();
  encodeBody(w, f.msg!, v, plan, f.json);
  w.end(mark);
}

function encodeMap(w: Writer, plan: MessagePlan, f: FieldPlan, v: unknown): void {
  if (!isMap(v)) throw badValue(plan, f.json, "an object", v);
  const keys = Object.keys(v).sort();
  const valueKey = f.scalar ? (2 << 3) | WIRE_OF_SCALAR[f.scalar] : (2 << 3) | WIRE_LEN;
  for (const k of keys) {
    w.uint32(f.key);
    const mark = w.begin();
    w.uint32(0x0a);
    w.string(k);
    w.uint32(valueKey);
    encodeValue(w, plan, f, v[k]);
    w.end(mark);
  }
}

function encodeScalar(w: Writer, plan: MessagePlan, f: FieldPlan, v: unknown): void {
  switch (f.scalar) {
    case Scalar.String:
      if (typeof v === "string") return w.string(v);
      if (v === null) return w.string("");
      throw badValue(plan, f.json, "a string", v);
    case Scalar.Bool:
      if (typeof v === "boolean") return w.bool(v);
      if (v === null) return w.bool(false);
      throw badValue(plan, f.json, "a boolean", v);
    case Scalar.Int32:
    case Scalar.Uint32:
    case Scalar.Int64:
    case Scalar.Uint64:
      if (v === null) return w.uint32(0);
      if (typeof v !== "number" || !Number.isInteger(v)) throw badValue(plan, f.json, "an integer", v);
      if (f.scalar === Scalar.Int32) {
        if (v < -2147483648 || v > 2147483647) throw badValue(plan, f.json, "a 32-bit integer", v);
        return w.int32(v);
      }
      if (f.scalar === Scalar.Uint32 && (v < 0 || v > 4294967295)) throw badValue(plan, f.json, "an unsigned 32-bit integer", v);
      if (f.scalar === Scalar.Uint64 && v < 0) throw badValue(plan, f.json, "an unsigned integer", v);
      return w.int64(v);
    case Scalar.Double:
    case Scalar.Float:
      if (v === null) v = 0;
      if (typeof v !== "number") throw badValue(plan, f.json, "a number", v);
      return f.scalar === Scalar.Double ? w.double(v) : w.float(v);
    case Scalar.Bytes:
      if (v === null) return w.uint32(0);
      if (typeof v === "string") return w.bytes(Buffer.from(v, "base64"));
      if (v instanceof Uint8Array) return w.bytes(v);
      throw badValue(plan, f.json, "a base64 string", v);
  }
}

/** Writes the body of message `plan` for the JSON value `v`. */
function encodeBody(w: Writer, plan: MessagePlan, v: unknown, parent: MessagePlan, field: string): void {
  if (plan.special) return encodeSpecial(w, plan, v, parent, field);
  if (v === null) return;
  if (!isMap(v)) throw badValue(parent, field, "an object", v);
  encodeFields(w, plan, v);
}

function encodeSpecial(w: Writer, plan: MessagePlan, v: unknown, parent: MessagePlan, field: string): void {
  switch (plan.special) {
    case "time":
    case "microtime": {
      if (v === null) return;
      if (typeof v !== "string") throw badValue(parent, field, "an RFC 3339 time string", v);
      const t = parseTime(v);
      if (!t) throw badValue(parent, field, "an RFC 3339 time string", v);
      w.uint32(0x08);
      w.int64(t[0]);
      w.uint32(0x10);
      w.int32(t[1]);
      return;
    }
    case "duration": {
      if (v === null) return;
      const ns = typeof v === "string" ? parseGoDuration(v) : null;
      if (ns === null) throw badValue(parent, field, "a duration string", v);
      w.uint32(0x08);
      w.int64(ns);
      return;
    }
    case "quantity":
      if (v === null) return;
      if (typeof v !== "string" && typeof v !== "number") throw badValue(parent, field, "a quantity", v);
      w.uint32(0x0a);
      w.string(String(v));
      return;
    case "intorstr":
      if (typeof v === "number" && Number.isInteger(v)) {
        w.uint32(0x08), w.uint32(0), w.uint32(0x10), w.int32(v), w.uint32(0x1a), w.uint32(0);
      } else if (typeof v === "string") {
        w.uint32(0x08), w.uint32(1), w.uint32(0x10), w.uint32(0), w.uint32(0x1a), w.string(v);
      } else if (v !== null) throw badValue(parent, field, "an integer or a string", v);
      return;
    case "rawext":
    case "rawjson":
      w.uint32(0x0a);
      w.bytes(v instanceof Uint8Array ? v : utf8.encode(JSON.stringify(v)));
      return;
    case "strlist":
      if (v === null) return;
      if (!Array.isArray(v)) throw badValue(parent, field, "an array of strings", v);
      for (const s of v) {
        if (typeof s !== "string") throw badValue(parent, field, "an array of strings", v);
        w.uint32(0x0a);
        w.string(s);
      }
      return;
    case "orbool":
      if (typeof v === "boolean") {
        w.uint32(0x08), w.bool(v);
      } else if (isMap(v)) {
        w.uint32(0x08), w.bool(true), w.uint32(0x12);
        encodeNested(w, plan.byNum[2]!.msg!, v);
      } else if (v !== null) throw badValue(parent, field, "a boolean or a schema", v);
      return;
    case "orarray":
    case "orstrings":
      if (isMap(v)) {
        w.uint32(0x0a);
        encodeNested(w, plan.byNum[1]!.msg!, v);
      } else if (Array.isArray(v)) {
        for (const item of v) {
          w.uint32(0x12);
          if (plan.special === "orarray") {
            if (!isMap(item)) throw badValue(parent, field, "an array of schemas", v);
            encodeNested(w, plan.byNum[2]!.msg!, item);
          } else {
            if (typeof item !== "string") throw badValue(parent, field, "an array of strings", v);
            w.string(item);
          }
        }
      } else if (v !== null) throw badValue(parent, field, plan.special === "orarray" ? "a schema or an array of schemas" : "a schema or an array of strings", v);
      return;
  }
}

function encodeNested(w: Writer, plan: MessagePlan, obj: Obj): void {
  const mark = w.begin();
  encodeFields(w, plan, obj);
  w.end(mark);
}
