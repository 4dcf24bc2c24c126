// The etcd v3 store (DESIGN.md §3, issue 6): the Store interface on etcd's own MVCC log, spoken through
// etcd's HTTP/JSON gRPC gateway (/v3/kv/*) on keep-alive HTTP/1.1 connections (http1.ts). Watches:
// Store.watch uses the gateway's /v3/watch (etcdwatch.ts); the watch caches share one gRPC watch of the
// key space (etcdshared.ts, etcdgrpc.ts). Keys and values are written as given, so
// `etcdctl get --prefix /registry/` shows what an upstream apiserver writes.
//
// Why the gateway for requests rather than gRPC (the etcd3 package): under Bun both reach about the same
// raw rate, but the gateway cost the client ~2.5x less CPU per request (≈50 µs vs ≈125 µs, measured with
// fetch; http1.ts costs less again), which the API server sharing the machine needs more, and it adds no
// dependency. Watch events are the opposite: the gateway's JSON marshalling costs etcd more than the event
// itself, so the shared watch is gRPC.
import {
  type DeleteResponse, type RangeResponse, type RawKV, type TxnResponse, dec, decValue, enc, num, rangeEndBytes, serverError, sleep,
} from "./etcdgateway.ts";
import { SharedWatch, type Subscriber } from "./etcdshared.ts";
import { EtcdWatcher } from "./etcdwatch.ts";
import { Http1Error, Http1Pool } from "./http1.ts";
import { listAll } from "./pages.ts";
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
      onList(await listAll(this, prefix, at));
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
