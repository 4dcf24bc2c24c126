// Kubernetes protobuf (`application/vnd.kubernetes.protobuf`) for the built-in kinds, wire-compatible with
// upstream's serializer: a payload is "k8s\0" + runtime.Unknown{typeMeta, raw = the object's message}.
// Watch streams frame each event as a 4-byte big-endian length + metav1.WatchEvent{type, object = RawExtension
// whose raw is the object's whole envelope, prefix included} (upstream's raw serializer + length framer).
import { decodeEnvelope, encodeEnvelope, hasPrefix } from "./codec.ts";

export { encodeListEnvelope, encodeMessage } from "./codec.ts";
import { ProtobufError, ProtobufUnsupported } from "./errors.ts";
import { messageForKind } from "./kinds.ts";
import { getCatalogue } from "./schema.ts";
import { Reader, Writer } from "./wire.ts";

export { ProtobufError, ProtobufUnsupported };
export { PREFIX } from "./codec.ts";

/** The media types this codec serves. */
export const PROTOBUF_MEDIA_TYPES = ["application/vnd.kubernetes.protobuf", "application/vnd.platform.protobuf"] as const;

/** Encodes a whole object (prefix + envelope). Throws ProtobufUnsupported for kinds without protobuf
 * (custom resources, Table), ProtobufError for values that do not fit their fields. */
export function encodeObject(obj: Record<string, any>): Uint8Array {
  return encodeEnvelope(obj);
}

/** Decodes a whole object; the JSON form has apiVersion and kind from the envelope. Throws ProtobufError
 * when the prefix is missing or the bytes are malformed, ProtobufUnsupported for an unknown kind. */
export function decodeObject(bytes: Uint8Array): Record<string, any> {
  return decodeEnvelope(bytes);
}

/** Whether apiVersion + kind has a protobuf form (built-in kinds and their lists, meta kinds such as Status). */
export function canEncode(apiVersion: string, kind: string): boolean {
  return messageForKind(apiVersion, kind) !== null;
}

/** Whether the bytes start with the protobuf prefix `6b 38 73 00`. */
export function isProtobuf(bytes: Uint8Array): boolean {
  return hasPrefix(bytes);
}

/** One watch frame: 4-byte big-endian length, then WatchEvent{type = 1, object = 2: RawExtension{raw = 1}}.
 * `obj` is the object, or its already encoded envelope (so one encoding can be shared by many watchers). */
export function encodeWatchEvent(type: string, obj: Record<string, any> | Uint8Array): Uint8Array {
  const envelope = obj instanceof Uint8Array ? obj : encodeEnvelope(obj);
  if (!hasPrefix(envelope)) throw new ProtobufError("watch event object is not a protobuf envelope");
  const w = new Writer(envelope.length + type.length + 24);
  w.pos = 4; // the frame length goes here
  w.uint32(0x0a);
  w.string(type);
  w.uint32(0x12);
  const mark = w.begin();
  w.uint32(0x0a);
  w.bytes(envelope);
  w.end(mark);
  const out = w.finish();
  new DataView(out.buffer, out.byteOffset, out.byteLength).setUint32(0, out.length - 4, false);
  return out;
}

export interface WatchEvent {
  type: string;
  object: Record<string, any>;
}

/** Decodes the complete frames in `bytes` (each a 4-byte big-endian length + WatchEvent); `rest` holds
 * the bytes of an incomplete trailing frame, to prepend to the next chunk. */
export function decodeWatchFrames(bytes: Uint8Array): { events: WatchEvent[]; rest: Uint8Array } {
  const events: WatchEvent[] = [];
  let pos = 0;
  while (bytes.length - pos >= 4) {
    const len = new DataView(bytes.buffer, bytes.byteOffset + pos, 4).getUint32(0, false);
    if (bytes.length - pos - 4 < len) break;
    events.push(decodeWatchEvent(bytes.subarray(pos + 4, pos + 4 + len)));
    pos += 4 + len;
  }
  return { events, rest: bytes.subarray(pos) };
}

/** Decodes one WatchEvent message (without its frame length). */
export function decodeWatchEvent(message: Uint8Array): WatchEvent {
  const r = new Reader(message);
  let type = "";
  let raw: Uint8Array | null = null;
  while (r.pos < message.length) {
    const tag = r.uint32();
    if (tag === 0x0a) type = r.string();
    else if (tag === 0x12) {
      const e = r.lenEnd();
      while (r.pos < e) {
        const t = r.uint32();
        if (t === 0x0a) raw = r.bytes();
        else r.skip(t & 7);
      }
    } else r.skip(tag & 7);
  }
  if (!raw) throw new ProtobufError("malformed watch event: no object");
  return { type, object: decodeEnvelope(raw) };
}

/** Parses the embedded .proto files now (otherwise done on first use); returns the milliseconds it took. */
export function preload(): number {
  return getCatalogue().loadMs;
}
