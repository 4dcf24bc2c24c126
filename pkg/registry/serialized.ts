// Serialized forms remembered per object: an object read from the watch cache is encoded once
// per representation and the bytes are reused by every get, list and watcher that sends it. JSON is
// kept as UTF-8 bytes, not a string: a list is then its items' bytes copied one after another, and no
// answer is encoded to UTF-8 again when it is written.
const json = new WeakMap<object, Uint8Array>();
const utf8 = new TextEncoder();

/** The object's JSON as UTF-8, encoded once per object (callers only read it). */
export function jsonBytesOf(obj: object): Uint8Array {
  let b = json.get(obj);
  if (b === undefined) json.set(obj, (b = utf8.encode(JSON.stringify(obj))));
  return b;
}

/** Where an object's metadata goes while the rest of it is encoded; text no other value encodes to. */
const HOLE = "\u0000kite:metadata";
const HOLE_JSON = `"metadata":${JSON.stringify(HOLE)}`;
/** Stored JSON of objects that were just encoded for a write, split around their metadata. */
const split = new WeakMap<object, { head: string; metadata: string; tail: string }>();

/**
 * JSON.stringify of an object that a write is about to store, remembering where its metadata's text lies,
 * so that rememberWritten can give the object its JSON once resourceVersion is set, without a second
 * encode. The object must not change in between.
 */
export function storedJSON(obj: { metadata?: unknown }): string {
  const md = obj.metadata;
  if (typeof md !== "object" || md === null || Array.isArray(md)) return JSON.stringify(obj);
  obj.metadata = HOLE;
  let whole: string;
  try { whole = JSON.stringify(obj); } finally { obj.metadata = md; }
  const at = whole.indexOf(HOLE_JSON);
  const metadata = JSON.stringify(md);
  // the hole's text once (a string of the object's own could only repeat it, never stand in for it)
  if (at < 0 || whole.indexOf(HOLE_JSON, at + 1) >= 0) return JSON.stringify(obj);
  const head = whole.slice(0, at + '"metadata":'.length), tail = whole.slice(at + HOLE_JSON.length);
  split.set(obj, { head, metadata, tail });
  return head + metadata + tail;
}

/**
 * After the write: the object's JSON is its stored JSON with resourceVersion (just set, last in its
 * metadata) added, as JSON.stringify of it would give. No-op for an object storedJSON did not encode.
 */
export function rememberWritten(obj: { metadata?: Record<string, unknown> }) {
  const s = split.get(obj);
  if (!s) return;
  split.delete(obj);
  if (!obj.metadata || Object.keys(obj.metadata).at(-1) !== "resourceVersion") return;
  const rv = `"resourceVersion":${JSON.stringify(obj.metadata.resourceVersion)}}`;
  json.set(obj, utf8.encode(s.head + (s.metadata === "{}" ? `{${rv}` : `${s.metadata.slice(0, -1)},${rv}`) + s.tail));
}

const COMMA = utf8.encode(",");
const CLOSE = utf8.encode("]}");

/**
 * A list's JSON in parts, to be sent one after another: the envelope, then each element of its array
 * (`items` from their remembered bytes, or a Table's `rows`, made for this response and not remembered).
 * The array comes last, where it is in every list and Table, so the parts joined are JSON.stringify of
 * the whole (its UTF-8 for `items`).
 */
export function* listJSONParts(list: Record<string, any>, key: "items" | "rows" = "items"): Generator<string | Uint8Array> {
  const { [key]: elements, ...head } = list as Record<string, object[]>;
  const h = JSON.stringify(head);
  const open = `${h.slice(0, -1)},"${key}":[`;
  if (key === "rows") {
    yield open;
    for (let i = 0; i < elements.length; i++) yield i ? `,${JSON.stringify(elements[i])}` : JSON.stringify(elements[i]);
    yield "]}";
    return;
  }
  yield utf8.encode(open);
  for (let i = 0; i < elements.length; i++) {
    if (i) yield COMMA;
    yield jsonBytesOf(elements[i]);
  }
  yield CLOSE;
}

import { encodeListEnvelope, encodeMessage, encodeObject, encodeWatchEvent } from "../protobuf/index.ts";
import { Reader, Writer } from "../protobuf/wire.ts";

const eventLines = new WeakMap<object, Map<string, Uint8Array>>();

/**
 * One watch event line as bytes, built once per event type, object and representation (`repKey`,
 * with `convert` producing that representation), and shared by every watcher that sends it.
 */
export function eventLine(type: string, obj: object, repKey = "", convert?: (o: object) => object): Uint8Array {
  // A commit's fan-out asks for the same line once per watcher, one after another.
  if (obj === last.obj && type === last.type && repKey === last.repKey) return last.bytes;
  const bytes = rememberedLine(type, obj, repKey, convert);
  last = { obj, type, repKey, bytes };
  return bytes;
}

const EVENT_END = utf8.encode("}\n");

let last: { obj: object; type: string; repKey: string; bytes: Uint8Array } = { obj: {}, type: "", repKey: "", bytes: new Uint8Array() };

function rememberedLine(type: string, obj: object, repKey: string, convert?: (o: object) => object): Uint8Array {
  let m = eventLines.get(obj);
  if (!m) eventLines.set(obj, (m = new Map()));
  const key = `${type};${repKey}`;
  let b = m.get(key);
  if (!b) {
    const object = convert ? utf8.encode(JSON.stringify(convert(obj))) : jsonBytesOf(obj);
    m.set(key, (b = Buffer.concat([utf8.encode(`{"type":"${type}","object":`), object, EVENT_END])));
  }
  return b;
}

/** One watch event frame in the binary form (length-prefixed), built once per event type and object. */
export function eventFrame(type: string, obj: object): Uint8Array {
  let m = eventLines.get(obj);
  if (!m) eventLines.set(obj, (m = new Map()));
  const key = `${type};protobuf`;
  let b = m.get(key);
  if (!b) {
    let env = m.get("protobuf");
    if (!env) m.set("protobuf", (env = encodeObject(obj as Record<string, any>)));
    m.set(key, (b = encodeWatchEvent(type, env)));
  }
  return b;
}

const messages = new WeakMap<object, Uint8Array>();

/** An empty part: lets the sender pause after an item's message was encoded. */
const NOTHING = new Uint8Array(0);

/** Items are sent in parts of about this size (each part one copy of its items' messages). */
const PART = 1 << 20;

const varintSize = (n: number) => (n < 1 << 7 ? 1 : n < 1 << 14 ? 2 : n < 1 << 21 ? 3 : n < 1 << 28 ? 4 : 5);
/** An item's bytes in the list message: field 2's tag, the length, the message. */
const fieldSize = (m: Uint8Array) => 1 + varintSize(m.length) + m.length;

/**
 * A list in the binary form, in parts. Each item's message is remembered per cached object (encoded once).
 * The envelope states its length first, so every message is encoded (and an item that cannot be is
 * refused) before the first byte. A small list is one part, encoded whole; a large one is the envelope's
 * head, the items in parts of about PART bytes, and the envelope's tail.
 */
export function* listProtobufParts(list: { items: object[] } & Record<string, any>): Generator<Uint8Array> {
  const items: Uint8Array[] = [];
  let size = 0;
  for (const o of list.items) {
    let m = messages.get(o);
    if (!m) {
      messages.set(o, (m = encodeMessage(o as Record<string, any>)));
      yield NOTHING;
    }
    items.push(m);
    size += fieldSize(m);
  }
  if (size <= PART) {
    yield encodeListEnvelope(list, items);
    return;
  }
  const { head, tail } = envelopeAround(list, size);
  yield head;
  for (let i = 0; i < items.length;) {
    let end = i, bytes = 0;
    while (end < items.length && bytes < PART) bytes += fieldSize(items[end++]);
    const w = new Writer(bytes + 8);
    for (; i < end; i++) {
      w.uint32(0x12);
      w.bytes(items[i]);
    }
    yield w.buf.subarray(0, w.pos);
  }
  yield tail;
}

/**
 * The list's envelope (prefix, then runtime.Unknown{typeMeta = 1, raw = 2, ...}) around `size` bytes of
 * items: the envelope of the list without items, its raw field's length grown by `size`.
 */
function envelopeAround(list: Record<string, any>, size: number): { head: Uint8Array; tail: Uint8Array } {
  const e = encodeListEnvelope(list, []);
  const r = new Reader(e, 4);
  r.uint32(); // typeMeta's tag
  r.pos = r.lenEnd();
  const rawTag = r.pos;
  r.uint32();
  const rawEnd = r.lenEnd();
  const rawStart = r.pos;
  const length = new Writer(8);
  length.uint32(rawEnd - rawStart + size);
  return {
    head: Buffer.concat([e.subarray(0, rawTag + 1), length.buf.subarray(0, length.pos), e.subarray(rawStart, rawEnd)]),
    tail: e.subarray(rawEnd),
  };
}
