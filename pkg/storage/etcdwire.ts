// What etcd's two transports (the JSON gateway in etcd.ts, gRPC in etcdgrpc.ts) share: values as the
// store keeps them, and watch events built from etcd's.
import { hasPrefix } from "../protobuf/codec.ts";
import type { KeyValue, Value, WatchEvent } from "./store.ts";
import { isEncrypted } from "./encryption/transformer.ts";

const utf8 = new TextDecoder();

/** A value is bytes (a copy) when it is in the binary media type (its 4-byte prefix) or encrypted, else text. */
export function valueOf(bytes: Uint8Array): Value {
  return hasPrefix(bytes) || isEncrypted(bytes) ? new Uint8Array(bytes) : utf8.decode(bytes);
}

/**
 * A store event from etcd's: a DELETE carries only the key and the delete's revision, so its last value
 * and creation revision come from prev_kv.
 */
export function watchEvent(deleted: boolean, kv: KeyValue, prev?: KeyValue): WatchEvent {
  if (deleted) {
    return { type: "DELETE", kv: { key: kv.key, value: prev?.value ?? "", modRevision: kv.modRevision, createRevision: prev?.createRevision ?? 0 }, prev, created: false };
  }
  return { type: "PUT", kv, prev, created: kv.createRevision === kv.modRevision };
}
