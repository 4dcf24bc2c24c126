// The etcd v3 store (DESIGN.md §3, issue 6): the Store interface on etcd's own MVCC log, spoken through
// etcd's HTTP/JSON gRPC gateway (/v3/kv/*, /v3/watch) with Bun's fetch, except the watch that feeds the
// watch caches, which is gRPC (etcdgrpc.ts). Keys and values are written as given, so
// `etcdctl get --prefix /registry/` shows what an upstream apiserver writes.
//
// Why the gateway for requests rather than gRPC (the etcd3 package): under Bun both reach about the same
// raw rate, but the gateway costs the client ~2.5x less CPU per request (≈50 µs vs ≈125 µs), which the
// API server sharing the machine needs more, and it adds no dependency. Watch events are the opposite:
// the gateway's JSON marshalling costs etcd more than the event itself, so the shared watch is gRPC.
import { GrpcWatch } from "./etcdgrpc.ts";
import { valueOf, watchEvent } from "./etcdwire.ts";
import { Http1Error, Http1Pool } from "./http1.ts";
import { RevisionWaiters } from "./waiters.ts";
import {
  type KeyValue, type ListOptions, type ListResult, type Store, StoreError, type Value, type WatchEvent, type Watcher,
} from "./store.ts";

export interface EtcdTLSOptions {
  /** PEM text of the CA bundle that signed etcd's serving certificate. */
  ca?: string;
  /** PEM text of the client certificate and key (mutual TLS). */
  cert?: string;
  key?: string;
  rejectUnauthorized?: boolean;
}

export interface EtcdStoreOptions {
  /** Client URLs, e.g. ["http://127.0.0.1:2379"]; requests go to one and move on when it fails. */
  endpoints: string[];
  /** Prepended to every key on the wire and stripped from results (tests, or several tenants on one etcd). Default "". */
  keyPrefix?: string;
  /** Deadline for one request, retries included (default 10 s); past it the call fails with Unavailable. */
  requestTimeoutMs?: number;
  tls?: EtcdTLSOptions;
}

/** etcd's JSON for a key-value (int64 fields arrive as decimal strings; zero values are left out). */
interface RawKV { key?: string; value?: string; create_revision?: string; mod_revision?: string; version?: string }
interface RawHeader { revision?: string }
interface RangeResponse { header?: RawHeader; kvs?: RawKV[]; more?: boolean; count?: string }
interface PutResponse { header?: RawHeader; prev_kv?: RawKV }
interface DeleteResponse { header?: RawHeader; deleted?: string; prev_kvs?: RawKV[] }
interface TxnResponse {
  header?: RawHeader;
  succeeded?: boolean;
  responses?: { response_range?: RangeResponse; response_put?: PutResponse; response_delete_range?: DeleteResponse }[];
}
interface RawEvent { type?: "PUT" | "DELETE"; kv?: RawKV; prev_kv?: RawKV }
interface WatchResult {
  header?: RawHeader;
  created?: boolean;
  canceled?: boolean;
  compact_revision?: string;
  cancel_reason?: string;
  events?: RawEvent[];
}

const enc = (s: string | Uint8Array) => (typeof s === "string" ? Buffer.from(s, "utf8") : Buffer.from(s)).toString("base64");
const dec = (b: string | undefined) => (b ? Buffer.from(b, "base64").toString("utf8") : "");
const decValue = (b: string | undefined): Value => (b ? valueOf(Buffer.from(b, "base64")) : "");
const num = (s: string | undefined) => (s ? Number(s) : 0);

/** The first key after every key that starts with prefix, on bytes (etcd orders keys by bytes). */
function rangeEndBytes(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) { end[i]++; return end.subarray(0, i + 1); }
  }
  return Buffer.from([0]); // "\0" as range_end: every key from `key` on
}

/** An error that says whether the request may be sent again to another member. */
class CallError extends Error {
  constructor(readonly storeError: Error, readonly retry: "always" | "read" | "never") { super(storeError.message); }
}

function serverError(status: number, text: string, key: string): CallError {
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
  // Unavailable (14), DeadlineExceeded (4), ResourceExhausted (8): no leader, leader changed, request timed out, too many requests.
  if (grpcCode === 14 || grpcCode === 4 || grpcCode === 8 || status === 503 || status === 504 || status === 502) {
    // "no leader" and "too many requests" are refused before the proposal, so a write may go elsewhere.
    const safe = /no leader|too many requests|not capable|server stopped|stopping/.test(msg);
    return new CallError(new StoreError("Unavailable", key, `etcd: ${msg}`), safe ? "always" : "read");
  }
  return new CallError(new Error(`etcd: ${msg} (HTTP ${status})`), "never");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class EtcdStore implements Store {
  readonly name = "etcd";
  readonly endpoints: string[];
  private readonly keyPrefix: string;
  private readonly timeoutMs: number;
  private readonly session: Bun.FetchSession;
  /** Unary gateway calls (fetch serves the gateway's streaming watch). */
  private readonly http: Http1Pool;
  /** @internal TLS to etcd (the gRPC watch connects with it too). */
  readonly tlsOptions?: EtcdTLSOptions;
  private cur = 0;
  private compacted = 0;
  private closed = false;
  private watchers = new Set<EtcdWatcher>();
  private shared = new SharedWatch(this);
  /** Callers of currentRevision waiting for the next read (see there). */
  private nextRevision: { promise: Promise<number>; resolve: (r: number) => void; reject: (e: Error) => void } | null = null;
  private revisionInFlight = false;

  constructor(opts: EtcdStoreOptions) {
    if (!opts.endpoints.length) throw new Error("EtcdStore: no endpoints");
    this.endpoints = opts.endpoints.map((e) => e.replace(/\/+$/, ""));
    this.keyPrefix = opts.keyPrefix ?? "";
    this.timeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.session = new Bun.FetchSession(opts.tls ? { tls: opts.tls } : {});
    this.http = new Http1Pool({ tls: opts.tls });
    this.tlsOptions = opts.tls;
    // Spread load over members when several apiservers start together.
    this.cur = Math.floor(Math.random() * this.endpoints.length);
  }

  // ---- wire

  /** @internal The endpoint requests go to now. */
  endpoint() { return this.endpoints[this.cur]; }
  /** @internal Move to the next endpoint after a failure. */
  rotate(from: string) { if (this.endpoints[this.cur] === from) this.cur = (this.cur + 1) % this.endpoints.length; }
  /** @internal */
  get requestTimeoutMs() { return this.timeoutMs; }
  /**
   * @internal Runs `attempt` against each member in turn until one succeeds, moving on only when a
   * member is Unavailable; fails with the last error (watches start this way).
   */
  async onSomeMember(attempt: (ep: string) => Promise<void>): Promise<void> {
    let last: unknown;
    for (let i = 0; i < this.endpoints.length; i++) {
      const ep = this.endpoint();
      try {
        return await attempt(ep);
      } catch (e) {
        last = e;
        if (e instanceof StoreError && e.code !== "Unavailable") throw e;
        this.rotate(ep);
      }
    }
    throw last;
  }
  /** @internal */
  fetch(url: string, init: BunFetchRequestInit) { return this.session.fetch(url, init); }

  /**
   * POST one gateway call. Reads (and compaction) retry on another member until the deadline; writes only
   * when the request surely was not applied (connection refused, or refused before the proposal).
   */
  private async call<T>(path: string, body: unknown, key: string, write = false): Promise<T> {
    if (this.closed) throw new StoreError("Unavailable", key, "etcd store is closed");
    const payload = JSON.stringify(body);
    const deadline = Date.now() + this.timeoutMs;
    let last: Error | undefined;
    for (let attempt = 0; ; attempt++) {
      const ep = this.endpoint();
      let retry: "always" | "read" | "never";
      try {
        const res = await this.http.post(`${ep}${path}`, payload, Math.max(1, deadline - Date.now()));
        if (res.status >= 200 && res.status < 300) return JSON.parse(res.text) as T;
        const ce = serverError(res.status, res.text, key);
        last = ce.storeError;
        retry = ce.retry;
      } catch (e) {
        if (!(e instanceof Http1Error)) throw e;
        if (e.code === "Timeout") {
          throw new StoreError("Unavailable", key, `etcd: request to ${ep} timed out after ${this.timeoutMs} ms`);
        }
        last = new StoreError("Unavailable", key, `etcd: ${ep}: ${e.message}`);
        // Refused: nothing was sent. Anything else (reset, closed) may have reached the server.
        retry = e.sent ? "read" : "always";
      }
      if (retry === "never" || (write && retry === "read")) {
        if (last instanceof StoreError && last.code === "Unavailable") this.rotate(ep);
        throw last;
      }
      this.rotate(ep);
      // Every member in turn; between rounds back off 100, 200, 400 ms; then (or at the deadline) give up.
      const n = this.endpoints.length;
      const round = Math.floor((attempt + 1) / n);
      if (round >= 4) throw last;
      const wait = (attempt + 1) % n === 0 ? 100 * 2 ** (round - 1) : 0;
      if (Date.now() + wait >= deadline) throw last;
      if (wait) await sleep(wait);
    }
  }

  private full(key: string) { return this.keyPrefix + key; }
  /** @internal A key as etcd has it, without this store's key prefix. */
  stripKey(key: string) { return this.strip(key); }
  private strip(key: string) { return this.keyPrefix ? key.slice(this.keyPrefix.length) : key; }

  /** @internal [key, range_end] (base64) covering every key under prefix. */
  prefixRange(prefix: string): [string, string, Buffer] {
    const p = Buffer.from(this.full(prefix), "utf8");
    if (p.length === 0) return [enc("\0"), enc("\0"), Buffer.from([0])];
    return [p.toString("base64"), rangeEndBytes(p).toString("base64"), p];
  }

  /** @internal */
  toKV(r: RawKV): KeyValue {
    return { key: this.strip(dec(r.key)), value: decValue(r.value), modRevision: num(r.mod_revision), createRevision: num(r.create_revision) };
  }

  // ---- Store

  /**
   * The store's newest revision, from a linearizable range of one key (its header carries it). Concurrent
   * callers share one read, but never one that began before they called: each waits for the next read
   * to start, so the answer is still at least every revision acknowledged before the call.
   */
  currentRevision(): Promise<number> {
    if (this.nextRevision) return this.nextRevision.promise;
    let resolve!: (r: number) => void, reject!: (e: Error) => void;
    const promise = new Promise<number>((res, rej) => { resolve = res; reject = rej; });
    this.nextRevision = { promise, resolve, reject };
    if (!this.revisionInFlight) void this.readRevision();
    return promise;
  }

  private async readRevision() {
    const batch = this.nextRevision!;
    this.nextRevision = null;
    this.revisionInFlight = true;
    try {
      const r = await this.call<RangeResponse>("/v3/kv/range", { key: enc(this.keyPrefix || "\0"), count_only: true }, "");
      batch.resolve(num(r.header?.revision));
    } catch (e) {
      batch.reject(e as Error);
    } finally {
      this.revisionInFlight = false;
      if (this.nextRevision) void this.readRevision();
    }
  }

  /** The newest compaction this store made or learned of (etcd does not report it; another server's may be newer). */
  async compactedRevision(): Promise<number> { return this.compacted; }

  /** @internal */
  learnCompacted(rev: number) { if (rev > this.compacted) this.compacted = rev; }

  async get(key: string, revision = 0): Promise<KeyValue | null> {
    const body: Record<string, unknown> = { key: enc(this.full(key)) };
    if (revision > 0) body.revision = revision;
    const r = await this.call<RangeResponse>("/v3/kv/range", body, key);
    const kv = r.kvs?.[0];
    return kv ? this.toKV(kv) : null;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const [key, end, start] = this.prefixRange(prefix);
    const body: Record<string, unknown> = { key, range_end: end };
    if (opts.startKey) {
      const sk = Buffer.from(this.full(opts.startKey), "utf8");
      if (Buffer.compare(sk, start) > 0) body.key = sk.toString("base64");
    }
    if (opts.revision && opts.revision > 0) body.revision = opts.revision;
    if (opts.limit && opts.limit > 0) body.limit = opts.limit;
    const r = await this.call<RangeResponse>("/v3/kv/range", body, prefix);
    const items = (r.kvs ?? []).map((kv) => this.toKV(kv));
    const more = !!r.more;
    // count is every key in [key, range_end) at the revision, so what follows the page is count - page.
    const remaining = more ? Math.max(0, num(r.count) - items.length) : 0;
    return { items, revision: opts.revision && opts.revision > 0 ? opts.revision : num(r.header?.revision), more, remaining };
  }

  async count(prefix: string): Promise<number> {
    const [key, end] = this.prefixRange(prefix);
    const r = await this.call<RangeResponse>("/v3/kv/range", { key, range_end: end, count_only: true }, prefix);
    return num(r.count);
  }

  async create(key: string, value: Value): Promise<KeyValue> {
    const k = enc(this.full(key));
    const r = await this.call<TxnResponse>("/v3/kv/txn", {
      compare: [{ key: k, target: "CREATE", result: "EQUAL", create_revision: "0" }],
      success: [{ request_put: { key: k, value: enc(value) } }],
    }, key, true);
    if (!r.succeeded) throw new StoreError("KeyExists", key);
    const rev = num(r.header?.revision);
    return { key, value, modRevision: rev, createRevision: rev };
  }

  /** The compare for "the key is live, at expected when given". */
  private guard(k: string, expected?: number) {
    return expected
      ? { key: k, target: "MOD", result: "EQUAL", mod_revision: String(expected) }
      : { key: k, target: "CREATE", result: "GREATER", create_revision: "0" };
  }

  /** After a failed guard: NotFound when the key is gone, else Conflict with its revision. */
  private guardFailure(key: string, r: TxnResponse, expected?: number): StoreError {
    const cur = r.responses?.[0]?.response_range?.kvs?.[0];
    if (!cur) return new StoreError("NotFound", key);
    const rev = num(cur.mod_revision);
    return new StoreError("Conflict", key, `revision ${expected} is not the current ${rev}`, rev);
  }

  async update(key: string, value: Value, expectedModRevision: number): Promise<KeyValue> {
    const k = enc(this.full(key));
    const r = await this.call<TxnResponse>("/v3/kv/txn", {
      compare: [this.guard(k, expectedModRevision)],
      success: [{ request_put: { key: k, value: enc(value), prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    }, key, true);
    if (!r.succeeded) throw this.guardFailure(key, r, expectedModRevision);
    const rev = num(r.header?.revision);
    const prev = r.responses?.[0]?.response_put?.prev_kv;
    return { key, value, modRevision: rev, createRevision: prev ? num(prev.create_revision) : rev };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const k = enc(this.full(key));
    let prev: RawKV | undefined;
    let rev: number;
    if (expectedModRevision) {
      const r = await this.call<TxnResponse>("/v3/kv/txn", {
        compare: [this.guard(k, expectedModRevision)],
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }, key, true);
      if (!r.succeeded) throw this.guardFailure(key, r, expectedModRevision);
      prev = r.responses?.[0]?.response_delete_range?.prev_kvs?.[0];
      rev = num(r.header?.revision);
    } else {
      const r = await this.call<DeleteResponse>("/v3/kv/deleterange", { key: k, prev_kv: true }, key, true);
      prev = r.prev_kvs?.[0];
      rev = num(r.header?.revision);
    }
    if (!prev) throw new StoreError("NotFound", key);
    return { key, value: decValue(prev.value), modRevision: rev, createRevision: num(prev.create_revision) };
  }

  async watch(prefix: string, afterRevision: number, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Promise<Watcher> {
    const [key, end] = this.prefixRange(prefix);
    // etcd reports a compacted start only after the watch is set up (asynchronously); a range at the
    // start revision answers at once, so watch() fails with Compacted as the interface says (also for
    // afterRevision 0, "all history", once anything was compacted).
    try {
      await this.call<RangeResponse>("/v3/kv/range", { key, count_only: true, revision: Math.max(0, afterRevision) + 1 }, prefix);
    } catch (e) {
      if (!(e instanceof StoreError && e.code === "FutureRevision")) throw e;
    }
    const w = new EtcdWatcher(this, prefix, key, end, afterRevision, onEvent, onError);
    await w.start();
    this.watchers.add(w);
    return w;
  }

  /**
   * Watch caches share one etcd watch of the store's whole key range (SharedWatch): each lists its
   * prefix at the shared watch's position and takes its events from there on.
   */
  async listAndWatch(prefix: string, onList: (list: ListResult) => void, onEvent: (ev: WatchEvent) => void, onError: (err: Error) => void): Promise<Watcher> {
    await this.shared.start();
    const at = this.shared.pos;
    // Events after `at` that arrive while the list is read wait for it.
    const early: WatchEvent[] = [];
    let live = false;
    const sub: Subscriber = { prefix, after: at, onEvent: (ev) => (live ? onEvent(ev) : early.push(ev)), onError };
    this.shared.add(sub);
    try {
      onList(await this.list(prefix, { revision: at }));
    } catch (e) {
      this.shared.remove(sub);
      throw e;
    }
    live = true;
    early.forEach(onEvent);
    return { close: () => this.shared.remove(sub), progress: (atLeast, timeoutMs) => this.shared.progress(atLeast, timeoutMs) };
  }

  /** @internal A read-only txn (retried like reads). */
  txn(body: unknown, key: string) { return this.call<TxnResponse>("/v3/kv/txn", body, key); }

  /** @internal */
  forget(w: EtcdWatcher) { this.watchers.delete(w); }

  async compact(revision: number): Promise<void> {
    if (revision <= this.compacted) return;
    try {
      await this.call("/v3/kv/compaction", { revision }, "");
    } catch (e) {
      if (!(e instanceof StoreError)) throw e;
      if (e.code === "Compacted") { this.learnCompacted(revision); return; } // another server got there first
      if (e.code !== "FutureRevision") throw e;
      revision = Math.min(revision, await this.currentRevision());
      if (revision <= this.compacted) return;
      await this.call("/v3/kv/compaction", { revision }, "");
    }
    this.learnCompacted(revision);
  }

  /** Resolves when the cluster answers a linearizable read within timeoutMs (for /readyz). */
  async healthy(timeoutMs = 2000): Promise<void> {
    await Promise.race([
      this.currentRevision(),
      sleep(timeoutMs).then(() => { throw new StoreError("Unavailable", "", `etcd: no answer within ${timeoutMs} ms`); }),
    ]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.watchers]) w.close();
    this.shared.close();
    this.session.close();
    this.http.close();
  }
}

interface Subscriber { prefix: string; after: number; onEvent: (ev: WatchEvent) => void; onError: (err: Error) => void }

/**
 * One etcd watch of the store's whole key range, shared by every watch cache. Every write in etcd moves
 * its position (`pos`: every event up to it has been dispatched), so a cache fed by it is current at
 * `pos`, and a consistent read can be served from the cache once `pos` reaches the store's current
 * revision. This needs no progress notifications (trusted upstream only from etcd 3.4.31 / 3.5.13).
 */
class SharedWatch {
  pos = 0;
  private subs = new Set<Subscriber>();
  private waiters = new RevisionWaiters();
  private watcher: { close(): void } | null = null;
  private starting: Promise<void> | null = null;

  constructor(private s: EtcdStore) {}

  /** Starts the watch at the store's current revision (once; again after a failure). */
  start(): Promise<void> {
    this.starting ??= (async () => {
      const rev = await this.s.currentRevision();
      const [key64, end64, start] = this.s.prefixRange("");
      const end = Buffer.from(end64, "base64");
      this.pos = rev;
      const dispatch = (ev: WatchEvent) => this.dispatch(ev), fail = (err: Error) => this.fail(err);
      try {
        // no prev_kv: the caches it feeds hold every previous value (see Store.listAndWatch)
        const w = new GrpcWatch(this.s, start, end, rev, dispatch, fail, false);
        await w.start();
        this.watcher = w;
      } catch (e) {
        // No gRPC to be had (a proxy that speaks only HTTP/1, say): the gateway's watch does the same job, dearer.
        if (!(e instanceof StoreError && e.code === "Unavailable")) throw e;
        console.warn(`etcd: no gRPC watch (${e.message}); watching through the JSON gateway`);
        const w = new EtcdWatcher(this.s, "", key64, end64, rev, dispatch, fail, false);
        await w.start();
        this.watcher = w;
      }
    })().catch((e) => { this.starting = null; throw e; });
    return this.starting;
  }

  add(sub: Subscriber) { this.subs.add(sub); }
  remove(sub: Subscriber) { this.subs.delete(sub); }

  private dispatch(ev: WatchEvent) {
    const rev = ev.kv.modRevision;
    this.pos = rev;
    for (const sub of this.subs) if (rev > sub.after && ev.kv.key.startsWith(sub.prefix)) sub.onEvent(ev);
    this.waiters.reached(rev);
  }

  /** The position, once it has reached atLeast (or timeoutMs has passed). */
  async progress(atLeast = 0, timeoutMs = 3000): Promise<number> {
    if (this.pos < atLeast) await this.waiters.wait(atLeast, timeoutMs);
    return this.pos;
  }

  /** The watch ended for good (its history was compacted away): every cache on it fails and starts again. */
  private fail(err: Error) {
    const subs = [...this.subs];
    this.subs.clear();
    this.watcher = null;
    this.starting = null;
    subs.forEach((s) => s.onError(err));
  }

  close() {
    this.watcher?.close();
    this.subs.clear();
    this.waiters.cancel();
  }
}

/** Reads newline-delimited JSON messages from a streaming gateway response. */
class MessageReader {
  private buf = "";
  private decoder = new TextDecoder();
  private reader;
  constructor(body: ReadableStream<Uint8Array>) { this.reader = body.getReader(); }
  /** The next message, or null at the end of the stream. */
  async next(): Promise<{ result?: WatchResult; error?: { message?: string; code?: number; http_code?: number } } | null> {
    for (;;) {
      const nl = this.buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.buf.slice(0, nl).trim();
        this.buf = this.buf.slice(nl + 1);
        if (line) return JSON.parse(line);
        continue;
      }
      const { done, value } = await this.reader.read();
      if (done) {
        const line = (this.buf + this.decoder.decode()).trim();
        this.buf = "";
        return line ? JSON.parse(line) : null;
      }
      this.buf += this.decoder.decode(value, { stream: true });
    }
  }
  cancel() { this.reader.cancel().catch(() => {}); }
}

/** One etcd watch over the gateway; it reconnects (to the next member) from the last revision it delivered. */
class EtcdWatcher implements Watcher {
  private closed = false;
  private ac: AbortController | null = null;
  private reader: MessageReader | null = null;
  /** Every event up to this revision has been delivered. */
  private lastRev: number;
  /** Revision of etcd when the watch was first created (from the created response's header). */
  private createdRev = 0;
  /** Resolved when the first events arrive. */
  private firstEvents: () => void = () => {};

  constructor(
    private s: EtcdStore, private prefix: string, private key: string, private end: string,
    afterRevision: number, private onEvent: (ev: WatchEvent) => void, private onError?: (err: Error) => void,
    /** Ask for each event's previous value (a read in etcd per event). */
    private prevKv = true,
  ) {
    this.lastRev = Math.max(0, afterRevision);
  }

  /** The first connection: every member once; fails with the last error. */
  start(): Promise<void> {
    return this.s.onSomeMember(async (ep) => {
      const after = this.lastRev;
      const gotEvents = new Promise<void>((resolve) => { this.firstEvents = resolve; });
      const r = await this.connect(ep);
      void this.run(r);
      await this.awaitReplay(after, gotEvents);
    });
  }

  /** Opens the stream and reads until etcd confirms the watch. */
  private async connect(ep: string): Promise<MessageReader> {
    const ac = new AbortController();
    this.ac = ac;
    const timer = setTimeout(() => ac.abort(), this.s.requestTimeoutMs);
    try {
      const res = await this.s.fetch(`${ep}/v3/watch`, {
        method: "POST",
        // hasleader: etcd ends the watch when this member loses the leader, so it moves to a member that has one.
        headers: { "content-type": "application/json", "grpc-metadata-hasleader": "true" },
        body: JSON.stringify({
          create_request: { key: this.key, range_end: this.end, start_revision: String(this.lastRev + 1), prev_kv: this.prevKv },
        }),
        signal: ac.signal,
      });
      if (!res.ok) throw serverError(res.status, await res.text(), this.prefix).storeError;
      const r = new MessageReader(res.body!);
      this.reader = r;
      for (;;) {
        const m = await r.next();
        if (!m) throw new StoreError("Unavailable", this.prefix, `etcd: watch stream from ${ep} ended before it was created`);
        if (m.error) throw serverError(m.error.http_code ?? 503, JSON.stringify(m.error), this.prefix).storeError;
        this.handle(m.result ?? {});
        if (m.result?.created) {
          if (!this.createdRev) this.createdRev = num(m.result.header?.revision);
          return r;
        }
      }
    } catch (e) {
      this.reader?.cancel();
      if (this.closed) throw new StoreError("Unavailable", this.prefix, "watch closed");
      if (e instanceof StoreError) throw e;
      const err = e as Error & { code?: string };
      throw new StoreError("Unavailable", this.prefix, `etcd: watch on ${ep}: ${err.code ?? err.name}: ${err.message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * etcd replays history (a start revision below its current one) from a loop that runs every 100 ms, so
   * the first events can come that late. When the history holds events for this prefix, wait for them, so
   * that they are delivered before watch() resolves and live events follow at once. A read-only txn tells:
   * keys written after `after` (live now) or keys live at `after` that were changed or deleted since. (A key
   * both created and deleted in between escapes it; those events still come, within the 100 ms.)
   */
  private async awaitReplay(after: number, gotEvents: Promise<void>) {
    const at = this.createdRev;
    if (after + 1 > at) return;
    const range = { key: this.key, range_end: this.end, count_only: true };
    // The replay loop runs every 100 ms: a second is plenty, and a watch never waits longer to start.
    let pending = true, wait = Math.min(this.s.requestTimeoutMs, 1000);
    try {
      const ops = [
        { request_range: { ...range, revision: String(at), min_mod_revision: String(after + 1) } },
        { request_range: { ...range, revision: String(at), max_mod_revision: String(after) } },
      ];
      if (after > 0) ops.push({ request_range: { ...range, revision: String(after) } } as (typeof ops)[number]);
      const r = await this.s.txn({ success: ops }, this.prefix);
      const counts = (r.responses ?? []).map((x) => num(x.response_range?.count));
      const touched = counts[0] > 0 || (after > 0 && counts[2] !== counts[1]);
      pending = touched;
    } catch {
      wait = 250; // unknown: wait as if pending, but no longer than a replay takes
    }
    if (!pending) return;
    let timer: Timer | undefined;
    await Promise.race([gotEvents, new Promise<void>((r) => { timer = setTimeout(r, wait); })]);
    clearTimeout(timer);
  }

  /** Applies one watch response: events in order; a compacted start ends the watch with Compacted. */
  private handle(r: WatchResult) {
    const compactRev = num(r.compact_revision);
    if (compactRev > 0) {
      this.s.learnCompacted(compactRev);
      throw new StoreError("Compacted", this.prefix, `revision ${this.lastRev + 1} has been compacted (compact revision ${compactRev})`);
    }
    if (r.canceled) throw new StoreError("Unavailable", this.prefix, `etcd: watch canceled: ${r.cancel_reason ?? "no reason given"}`);
    if (!r.events) return;
    for (const e of r.events) {
      if (this.closed) return;
      const ev = this.toEvent(e);
      // A reconnect asks for lastRev + 1 on; events of one multi-key txn share a revision.
      if (ev.kv.modRevision < this.lastRev) continue;
      this.lastRev = ev.kv.modRevision;
      this.firstEvents();
      try {
        this.onEvent(ev);
      } catch (err) {
        this.onError?.(err as Error);
      }
    }
  }

  private toEvent(e: RawEvent): WatchEvent {
    return watchEvent(e.type === "DELETE", this.s.toKV(e.kv ?? {}), e.prev_kv ? this.s.toKV(e.prev_kv) : undefined);
  }

  /** Reads the stream; when it breaks, reconnects with backoff (moving to the next member) from lastRev+1. */
  private async run(r: MessageReader | null) {
    let delay = 50;
    while (!this.closed) {
      let ep = this.s.endpoint();
      if (r) {
        try {
          for (;;) {
            const m = await r.next();
            if (!m || this.closed) break;
            if (m.error) break;
            this.handle(m.result ?? {});
          }
        } catch (e) {
          if (this.closed) return;
          if (e instanceof StoreError && e.code === "Compacted") return this.fail(e);
        }
        r.cancel();
        r = null;
        this.s.rotate(ep);
      }
      if (this.closed) return;
      await sleep(delay);
      delay = Math.min(delay * 2, 2000);
      ep = this.s.endpoint();
      try {
        r = await this.connect(ep);
        delay = 50;
      } catch (e) {
        if (this.closed) return;
        if (e instanceof StoreError && e.code === "Compacted") return this.fail(e);
        this.s.rotate(ep);
      }
    }
  }

  private fail(err: Error) {
    if (this.closed) return;
    this.close();
    if (this.onError) this.onError(err);
    else console.warn(`etcd watch on ${this.prefix} ended: ${err.message}`);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.ac?.abort();
    this.reader?.cancel();
    this.firstEvents();
    this.s.forget(this);
  }
}
