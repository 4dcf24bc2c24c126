// etcd's JSON gateway as the store speaks it: message shapes (int64 fields arrive as decimal strings,
// bytes as base64), and what an error answer means for retrying it elsewhere.
import { valueOf } from "./etcdwire.ts";
import { StoreError, type Value } from "./store.ts";

/** etcd's JSON for a key-value (int64 fields arrive as decimal strings; zero values are left out). */
export interface RawKV { key?: string; value?: string; create_revision?: string; mod_revision?: string; version?: string }
export interface RawHeader { revision?: string }
export interface RangeResponse { header?: RawHeader; kvs?: RawKV[]; more?: boolean; count?: string }
export interface PutResponse { header?: RawHeader; prev_kv?: RawKV }
export interface DeleteResponse { header?: RawHeader; deleted?: string; prev_kvs?: RawKV[] }
export interface TxnResponse {
  header?: RawHeader;
  succeeded?: boolean;
  responses?: { response_range?: RangeResponse; response_put?: PutResponse; response_delete_range?: DeleteResponse }[];
}
export interface RawEvent { type?: "PUT" | "DELETE"; kv?: RawKV; prev_kv?: RawKV }
export interface WatchResult {
  header?: RawHeader;
  created?: boolean;
  canceled?: boolean;
  compact_revision?: string;
  cancel_reason?: string;
  events?: RawEvent[];
}

export const enc = (s: string | Uint8Array) => (typeof s === "string" ? Buffer.from(s, "utf8") : Buffer.from(s)).toString("base64");
export const dec = (b: string | undefined) => (b ? Buffer.from(b, "base64").toString("utf8") : "");
export const decValue = (b: string | undefined): Value => (b ? valueOf(Buffer.from(b, "base64")) : "");
export const num = (s: string | undefined) => (s ? Number(s) : 0);

/** The first key after every key that starts with prefix, on bytes (etcd orders keys by bytes). */
export function rangeEndBytes(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) { end[i]++; return end.subarray(0, i + 1); }
  }
  return Buffer.from([0]); // "\0" as range_end: every key from `key` on
}

/** An error that says whether the request may be sent again to another member. */
export class CallError extends Error {
  constructor(readonly storeError: Error, readonly retry: "always" | "read" | "never") { super(storeError.message); }
}

export function serverError(status: number, text: string, key: string): CallError {
  let msg = text;
  let grpcCode = 0;
  try {
    const j = JSON.parse(text) as { message?: string; error?: string; code?: number };
    msg = j.message || j.error || text;
    grpcCode = j.code ?? 0;
  } catch { /* not JSON */ }
  msg = msg.trim() || `HTTP ${status}`;
  if (msg.includes("required revision has been compacted")) return new CallError(new StoreError("Compacted", key, msg), "never");
  if (msg.includes("required revision is a future revision")) return new CallError(new StoreError("FutureRevision", key, msg), "never");
  // A value past etcd's request limit (--max-request-bytes) or the gateway's message limit never fits.
  if (/request is too large|larger than max/.test(msg)) return new CallError(new StoreError("TooLarge", key, `etcd: ${msg}`), "never");
  // Unavailable (14), DeadlineExceeded (4), ResourceExhausted (8): no leader, leader changed, request timed out, too many requests.
  if (grpcCode === 14 || grpcCode === 4 || grpcCode === 8 || status === 503 || status === 504 || status === 502) {
    // "no leader" and "too many requests" are refused before the proposal, so a write may go elsewhere.
    const safe = /no leader|too many requests|not capable|server stopped|stopping/.test(msg);
    return new CallError(new StoreError("Unavailable", key, `etcd: ${msg}`), safe ? "always" : "read");
  }
  return new CallError(new Error(`etcd: ${msg} (HTTP ${status})`), "never");
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
