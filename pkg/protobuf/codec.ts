// Protobuf message bodies → JSON objects, walking the plans built from Kite's .proto files, and the
// `k8s\0` + runtime.Unknown envelope around a whole object (encoded bodies from ./encode.ts).
import { encodeFields } from "./encode.ts";
import { ProtobufError, ProtobufUnsupported } from "./errors.ts";
import { formatGoDuration, formatTime } from "./gotime.ts";
import { messageForKind } from "./kinds.ts";
import { Scalar, WIRE_OF_SCALAR, type FieldPlan, type MessagePlan } from "./schema.ts";
import { Reader, WIRE_LEN, Writer } from "./wire.ts";
import { isMap } from "../util/ismap.ts";

/** The magic number that starts every Kubernetes protobuf payload: "k8s\0". */
export const PREFIX = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

type Obj = Record<string, unknown>;
const utf8Decoder = new TextDecoder();

export function hasPrefix(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
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
