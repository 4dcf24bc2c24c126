// JSON objects ↔ protobuf messages, walking the plans built from Kite's .proto files, and the
// `k8s\0` + runtime.Unknown envelope around a whole object.
import { ProtobufError, ProtobufUnsupported } from "./errors.ts";
import { messageForKind } from "./kinds.ts";
import { Scalar, WIRE_OF_SCALAR, type FieldPlan, type MessagePlan } from "./schema.ts";
import { Reader, WIRE_LEN, Writer } from "./wire.ts";
import { isMap } from "../util/ismap.ts";

/** The magic number that starts every Kubernetes protobuf payload: "k8s\0". */
export const PREFIX = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

type Obj = Record<string, unknown>;
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

const describe = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
function badValue(plan: MessagePlan, field: string, want: string, v: unknown): ProtobufError {
  return new ProtobufError(`cannot encode ${plan.name.slice(plan.name.lastIndexOf(".") + 1)}.${field}: expected ${want}, got ${describe(v)}`);
}

export function hasPrefix(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}

// ---------------------------------------------------------------- encode

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

// ---------------------------------------------------------------- decode

const b64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");

function readScalar(r: Reader, kind: Scalar): unknown {
  switch (kind) {
    case Scalar.String:
      return r.string();
    case Scalar.Bool:
      return r.bool();
    case Scalar.Int32:
      return r.int32();
    case Scalar.Int64:
      return r.int64();
    case Scalar.Uint32:
      return r.uint32();
    case Scalar.Uint64:
      return r.uint64();
    case Scalar.Double:
      return r.double();
    case Scalar.Float:
      return r.float();
    case Scalar.Bytes:
      return b64(r.bytes());
  }
}

const ZERO: Record<Scalar, unknown> = {
  [Scalar.String]: "",
  [Scalar.Bool]: false,
  [Scalar.Int32]: 0,
  [Scalar.Int64]: 0,
  [Scalar.Uint32]: 0,
  [Scalar.Uint64]: 0,
  [Scalar.Double]: 0,
  [Scalar.Float]: 0,
  [Scalar.Bytes]: "",
};

function wrongWire(plan: MessagePlan, f: FieldPlan, wt: number): ProtobufError {
  return new ProtobufError(`malformed protobuf: field ${plan.name}.${f.json} has wire type ${wt}`);
}

/** Reads message `plan` from `r` up to `end`, adding its JSON fields to `out`. */
export function decodeFields(r: Reader, end: number, plan: MessagePlan, out: Obj): void {
  const byNum = plan.byNum;
  while (r.pos < end) {
    const tag = r.uint32();
    const wt = tag & 7;
    const f = byNum[tag >>> 3];
    if (f === undefined) {
      r.skip(wt);
      continue;
    }
    if (f.map) {
      if (wt !== WIRE_LEN) throw wrongWire(plan, f, wt);
      decodeMapEntry(r, plan, f, out);
      continue;
    }
    if (f.repeated) {
      let arr = out[f.json] as unknown[] | undefined;
      if (!arr) out[f.json] = arr = [];
      if (f.scalar && wt === WIRE_LEN && f.scalar !== Scalar.String && f.scalar !== Scalar.Bytes) {
        const e = r.lenEnd(); // packed
        while (r.pos < e) arr.push(readScalar(r, f.scalar));
        continue;
      }
      if ((tag & 7) !== (f.key & 7)) throw wrongWire(plan, f, wt);
      if (f.scalar) arr.push(readScalar(r, f.scalar));
      else {
        const v = decodeBody(r, r.lenEnd(), f.msg!, undefined);
        arr.push(v === undefined ? null : v);
      }
      continue;
    }
    if (wt !== (f.key & 7)) throw wrongWire(plan, f, wt);
    if (f.scalar) {
      const v = readScalar(r, f.scalar);
      if (f.keepZero || (v !== "" && v !== 0 && v !== false)) out[f.json] = v;
      continue;
    }
    const e = r.lenEnd();
    if (f.inline) {
      decodeFields(r, e, f.msg!, out);
      continue;
    }
    const v = decodeBody(r, e, f.msg!, out[f.json]);
    if (v !== undefined) out[f.json] = v;
  }
  if (r.pos !== end) throw new ProtobufError(`malformed protobuf: ${plan.name} overruns its length`);
}

function decodeMapEntry(r: Reader, plan: MessagePlan, f: FieldPlan, out: Obj): void {
  const e = r.lenEnd();
  let key = "";
  let value: unknown = undefined;
  while (r.pos < e) {
    const tag = r.uint32();
    if (tag === 0x0a) key = r.string();
    else if (tag >>> 3 === 2) {
      if ((tag & 7) !== (f.scalar ? WIRE_OF_SCALAR[f.scalar] : WIRE_LEN)) throw wrongWire(plan, f, tag & 7);
      value = f.scalar ? readScalar(r, f.scalar) : decodeBody(r, r.lenEnd(), f.msg!, undefined);
    } else r.skip(tag & 7);
  }
  if (r.pos !== e) throw new ProtobufError(`malformed protobuf: map entry of ${plan.name}.${f.json} overruns its length`);
  if (value === undefined) value = f.scalar ? ZERO[f.scalar] : decodeBody(r, r.pos, f.msg!, undefined);
  let m = out[f.json] as Obj | undefined;
  if (!m) out[f.json] = m = {};
  m[key] = value === undefined ? null : value;
}

/** Decodes the body of message `plan` (from r.pos to end) to its JSON value; undefined means "absent" (e.g. a zero time). */
function decodeBody(r: Reader, end: number, plan: MessagePlan, existing: unknown): unknown {
  if (plan.special) return decodeSpecial(r, end, plan);
  const out = isMap(existing) ? existing : {};
  decodeFields(r, end, plan, out);
  return out;
}

function decodeSpecial(r: Reader, end: number, plan: MessagePlan): unknown {
  let a: unknown, b: unknown, c: unknown;
  const list: unknown[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 0x08:
        a = plan.special === "orbool" ? r.bool() : r.int64();
        break;
      case 0x10:
        b = r.int64();
        break;
      case 0x0a:
        if (plan.special === "orarray" || plan.special === "orstrings") a = decodeBody(r, r.lenEnd(), plan.byNum[1]!.msg!, a);
        else if (plan.special === "strlist") list.push(r.string());
        else if (plan.special === "quantity") a = r.string();
        else a = r.bytes();
        break;
      case 0x12:
        if (plan.special === "orbool") b = decodeBody(r, r.lenEnd(), plan.byNum[2]!.msg!, b);
        else if (plan.special === "orarray") list.push(decodeBody(r, r.lenEnd(), plan.byNum[2]!.msg!, undefined));
        else if (plan.special === "orstrings") list.push(r.string());
        else r.skip(WIRE_LEN);
        break;
      case 0x1a:
        c = r.string();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  if (r.pos !== end) throw new ProtobufError(`malformed protobuf: ${plan.name} overruns its length`);
  switch (plan.special) {
    case "time":
      return a === undefined && b === undefined ? undefined : formatTime((a as number) ?? 0, 0);
    case "microtime":
      return a === undefined && b === undefined ? undefined : formatTime((a as number) ?? 0, (b as number) ?? 0, true);
    case "duration":
      return formatGoDuration((a as number) ?? 0);
    case "quantity":
      return (a as string | undefined) ?? "0";
    case "intorstr":
      return a === 1 ? ((c as string | undefined) ?? "") : (b as number | undefined) === undefined ? 0 : (b as number) | 0;
    case "rawext":
    case "rawjson":
      return a === undefined || (a as Uint8Array).length === 0 ? undefined : decodeRaw(a as Uint8Array, plan.special === "rawext");
    case "strlist":
      return list;
    case "orbool":
      return b !== undefined ? b : a === true;
    case "orarray":
    case "orstrings":
      return list.length ? list : a;
  }
}

/** A RawExtension / JSON payload: JSON text, or (inside watch events) a whole protobuf envelope. */
function decodeRaw(raw: Uint8Array, allowEnvelope: boolean): unknown {
  if (allowEnvelope && hasPrefix(raw)) return decodeEnvelope(raw);
  try {
    return JSON.parse(utf8Decoder.decode(raw));
  } catch {
    throw new ProtobufError("malformed protobuf: embedded raw value is neither JSON nor a protobuf object");
  }
}

// ---------------------------------------------------------------- envelope

const scratch = { writer: new Writer(4096) };

/** Writes prefix + runtime.Unknown{typeMeta, raw = what `raw` writes, contentEncoding "", contentType ""}. */
function writeEnvelope(w: Writer, apiVersion: string, kind: string, raw: () => void) {
  w.buf.set(PREFIX);
  w.pos = 4;
  w.uint32(0x0a);
  let mark = w.begin();
  w.uint32(0x0a);
  w.string(apiVersion);
  w.uint32(0x12);
  w.string(kind);
  w.end(mark);
  w.uint32(0x12);
  mark = w.begin();
  raw();
  w.end(mark);
  w.uint32(0x1a);
  w.uint32(0);
  w.uint32(0x22);
  w.uint32(0);
}

/** Encodes a whole object: prefix + runtime.Unknown{typeMeta, raw, contentEncoding "", contentType ""}. */
export function encodeEnvelope(obj: Record<string, any>): Uint8Array {
  if (!isMap(obj)) throw new ProtobufError("cannot encode: not an object");
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !kind) throw new ProtobufError("cannot encode: the object has no apiVersion and kind");
  const plan = messageForKind(apiVersion, kind);
  if (!plan) throw new ProtobufUnsupported(`${apiVersion}, Kind=${kind} has no protobuf representation`);
  const w = scratch.writer;
  w.pos = 0;
  try {
    writeEnvelope(w, apiVersion, kind, () => encodeFields(w, plan, obj));
    return w.finish();
  } finally {
    if (w.buf.length > 1 << 20) scratch.writer = new Writer(4096); // do not keep a huge buffer alive
  }
}

/** The message of one object, without the envelope (a list item's bytes, reusable across lists). */
export function encodeMessage(obj: Record<string, any>): Uint8Array {
  const plan = messageForKind(obj.apiVersion, obj.kind);
  if (!plan) throw new ProtobufUnsupported(`${obj.apiVersion}, Kind=${obj.kind} has no protobuf representation`);
  const w = new Writer(1024);
  encodeFields(w, plan, obj);
  return w.finish();
}

/**
 * A list's whole envelope from its items' messages: every upstream list message is
 * {metadata ListMeta = 1, repeated items = 2}, so items already encoded are copied in as they are.
 */
export function encodeListEnvelope(list: Record<string, any>, items: Uint8Array[]): Uint8Array {
  const { apiVersion, kind } = list;
  const plan = messageForKind(apiVersion, kind);
  if (!plan) throw new ProtobufUnsupported(`${apiVersion}, Kind=${kind} has no protobuf representation`);
  const w = new Writer(items.reduce((n, b) => n + b.length + 6, 256));
  writeEnvelope(w, apiVersion, kind, () => {
    encodeFields(w, plan, { metadata: list.metadata ?? {} });
    for (const b of items) {
      w.uint32(0x12);
      w.bytes(b);
    }
  });
  return w.finish();
}

const PROTOBUF_TYPES = new Set(["", "application/vnd.kubernetes.protobuf", "application/vnd.platform.protobuf"]);

/** Decodes a whole object from prefix + runtime.Unknown; the result carries apiVersion and kind first. */
export function decodeEnvelope(bytes: Uint8Array): Record<string, any> {
  if (!(bytes instanceof Uint8Array)) throw new ProtobufError("cannot decode: not a byte array");
  if (!hasPrefix(bytes)) throw new ProtobufError("provided data does not appear to be a protobuf message, expected prefix 6b 38 73 00");
  const r = new Reader(bytes, 4);
  let apiVersion = "", kind = "", contentEncoding = "", contentType = "";
  let rawStart = -1, rawEnd = -1;
  while (r.pos < bytes.length) {
    const tag = r.uint32();
    if (tag === 0x0a) {
      const e = r.lenEnd();
      while (r.pos < e) {
        const t = r.uint32();
        if (t === 0x0a) apiVersion = r.string();
        else if (t === 0x12) kind = r.string();
        else r.skip(t & 7);
      }
      if (r.pos !== e) throw new ProtobufError("malformed protobuf: typeMeta overruns its length");
    } else if (tag === 0x12) {
      rawEnd = r.lenEnd();
      rawStart = r.pos;
      r.pos = rawEnd;
    } else if (tag === 0x1a) contentEncoding = r.string();
    else if (tag === 0x22) contentType = r.string();
    else r.skip(tag & 7);
  }
  if (!kind) throw new ProtobufError("malformed protobuf: the envelope names no kind");
  if (contentEncoding) throw new ProtobufError(`unsupported protobuf contentEncoding "${contentEncoding}"`);
  const mediaType = contentType.split(";")[0].trim().toLowerCase();
  if (!PROTOBUF_TYPES.has(mediaType)) {
    if (mediaType !== "application/json") throw new ProtobufError(`unsupported protobuf contentType "${contentType}"`);
    const inner = rawStart < 0 ? {} : decodeRaw(bytes.subarray(rawStart, rawEnd), false);
    if (!isMap(inner)) throw new ProtobufError("malformed protobuf: embedded JSON is not an object");
    return { apiVersion, kind, ...inner };
  }
  const plan = messageForKind(apiVersion, kind);
  if (!plan) throw new ProtobufUnsupported(`${apiVersion}, Kind=${kind} has no protobuf representation`);
  const out: Record<string, any> = { apiVersion, kind };
  if (rawStart >= 0) decodeFields(new Reader(bytes, rawStart, rawEnd), rawEnd, plan, out);
  return out;
}

// ---------------------------------------------------------------- times and durations

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 → [unix seconds, nanoseconds]; null when malformed. */
export function parseTime(s: string): [number, number] | null {
  const m = RFC3339.exec(s);
  if (!m) return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  if (Number.isNaN(ms)) return null;
  const offset = m[8] ? 0 : (m[9] === "-" ? -1 : 1) * (+m[10] * 3600 + +m[11] * 60);
  const nanos = m[7] ? Number(m[7].padEnd(9, "0")) : 0;
  return [ms / 1000 - offset, nanos];
}

/** Go's JSON form of metav1.Time (seconds, UTC) and, with `micro`, of metav1.MicroTime. */
export function formatTime(seconds: number, nanos: number, micro = false): string {
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) throw new ProtobufError(`malformed protobuf: time ${seconds} out of range`);
  const base = d.toISOString().slice(0, -5); // drop ".sssZ"
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`;
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, "µs": 1e3, "μs": 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };
const DURATION_PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** A Go duration string ("1h2m3.5s", "-300ms", "0") → nanoseconds; null when malformed. */
export function parseGoDuration(s: string): number | null {
  let str = s, sign = 1;
  if (str[0] === "-" || str[0] === "+") {
    sign = str[0] === "-" ? -1 : 1;
    str = str.slice(1);
  }
  if (str === "0") return 0;
  if (!str) return null;
  let total = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < str.length) {
    const m = DURATION_PART.exec(str);
    if (!m) return null;
    total += Number(m[1]) * DURATION_UNITS[m[2]];
  }
  return sign * Math.round(total);
}

function fraction(v: number, unit: number): string {
  const whole = Math.floor(v / unit);
  const rest = v - whole * unit;
  if (!rest) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** Nanoseconds → Go's Duration.String() ("1h0m0s", "1.5s", "300ms", "0s"). */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return "0s";
  let u = Math.abs(ns);
  let out: string;
  if (u < 1e9) {
    out = u < 1e3 ? `${u}ns` : u < 1e6 ? `${fraction(u, 1e3)}µs` : `${fraction(u, 1e6)}ms`;
  } else {
    const h = Math.floor(u / 3.6e12);
    u -= h * 3.6e12;
    const m = Math.floor(u / 6e10);
    u -= m * 6e10;
    out = `${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${fraction(u, 1e9)}s`;
  }
  return ns < 0 ? `-${out}` : out;
}
