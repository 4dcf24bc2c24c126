// Serialized forms remembered per object: an object read from the watch cache is encoded once
// per representation and the bytes are reused by every list and watcher that sends it.
const json = new WeakMap<object, string>();

export function jsonOf(obj: object): string {
  let s = json.get(obj);
  if (s === undefined) json.set(obj, (s = JSON.stringify(obj)));
  return s;
}

/** Serializes a list envelope, reusing each item's remembered JSON. */
export function listJSON(list: { items: object[] } & Record<string, unknown>): string {
  const { items, ...head } = list;
  const h = JSON.stringify(head);
  return `${h.slice(0, -1)},"items":[${items.map(jsonOf).join(",")}]}`;
}

import { encodeListEnvelope, encodeMessage, encodeObject, encodeWatchEvent } from "../protobuf/index.ts";

const enc = new TextEncoder();
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

let last: { obj: object; type: string; repKey: string; bytes: Uint8Array } = { obj: {}, type: "", repKey: "", bytes: new Uint8Array() };

function rememberedLine(type: string, obj: object, repKey: string, convert?: (o: object) => object): Uint8Array {
  let m = eventLines.get(obj);
  if (!m) eventLines.set(obj, (m = new Map()));
  const key = `${type};${repKey}`;
  let b = m.get(key);
  if (!b) m.set(key, (b = enc.encode(`{"type":"${type}","object":${convert ? JSON.stringify(convert(obj)) : jsonOf(obj)}}\n`)));
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

/** A list in the binary form, reusing each item's remembered message bytes (cached objects encode once). */
export function listProtobuf(list: { items: object[] } & Record<string, any>): Uint8Array {
  const items = list.items.map((o) => {
    let m = messages.get(o);
    if (!m) messages.set(o, (m = encodeMessage(o as Record<string, any>)));
    return m;
  });
  return encodeListEnvelope(list, items);
}
