// The watch cache: one store watch per resource keeps the current state and a window of recent
// events in memory; every watcher and every cached list is served from it (DESIGN.md §3).
import { listAll } from "./pages.ts";
import { type KeyValue, type ListResult, type Store, StoreError, type WatchEvent, type Watcher } from "./store.ts";
import { RevisionWaiters } from "./waiters.ts";

/** A cached value; `memo` lets the layer above keep its decoded object and serialized forms with it. */
export interface Entry { kv: KeyValue; memo: Map<string, unknown> }

/** An event as the cache keeps it: the store event and the entries before and after it. */
export interface CachedEvent { ev: WatchEvent; cur: Entry; prev?: Entry; rev: number }

export interface CacheWatcher {
  /** Receives events in revision order; returns false when the watcher can take no more (it is cut off). */
  push(e: CachedEvent): boolean;
  /** The cache's revision moved with nothing for this watcher (for bookmarks). */
  progress?(rev: number): void;
  /** The watcher was cut off (too slow) or the cache failed. */
  fail(err: Error): void;
}

export class WatchCache {
  private items = new Map<string, Entry>();
  private sorted: string[] | null = null;
  private window: CachedEvent[] = [];
  private watchers = new Set<CacheWatcher>();
  private waiters = new RevisionWaiters();
  private storeWatch?: Watcher;
  /** Revision the cache reflects. */
  rev = 0;
  /** The window holds every event of this prefix after this revision. */
  private floor = 0;
  private ready: Promise<void>;
  /** True once the cache holds the state and follows the store; until then readers use the store. */
  isReady = false;
  /** True when starting failed (the store was unreachable); the owner starts a new cache later. */
  failed = false;

  constructor(private store: Store, readonly prefix: string, private capacity: number) {
    this.ready = this.start().then(() => { this.isReady = true; }, () => { this.failed = true; });
  }

  private async start() {
    const load = (list: ListResult) => {
      for (const kv of list.items) this.items.set(kv.key, { kv, memo: new Map() });
      this.rev = this.floor = list.revision;
    };
    if (this.store.listAndWatch) {
      this.storeWatch = await this.store.listAndWatch(this.prefix, load, (ev) => this.apply(ev), (err) => this.fail(err));
      return;
    }
    const list = await listAll(this.store, this.prefix);
    load(list);
    this.storeWatch = await this.store.watch(this.prefix, list.revision, (ev) => this.apply(ev));
  }

  /** The store's watch ended (e.g. its history was compacted away): watchers are told, the owner starts anew. */
  private fail(err: Error) {
    this.failed = true;
    for (const w of this.watchers) failSafely(w, err);
    this.watchers.clear();
  }

  private apply(ev: WatchEvent) {
    const key = ev.kv.key;
    const prev = this.items.get(key);
    // listAndWatch's DELETE carries no value: the object goes out as it was last seen here
    if (ev.type === "DELETE" && prev && ev.kv.createRevision === 0) ev = { ...ev, kv: { ...prev.kv, modRevision: ev.kv.modRevision } };
    const cur: Entry = { kv: ev.kv, memo: new Map() };
    if (ev.type === "DELETE") {
      this.items.delete(key);
      this.sorted = null;
    } else {
      if (!prev) this.sorted = null;
      this.items.set(key, cur);
    }
    const ce: CachedEvent = { ev, cur, prev, rev: ev.kv.modRevision };
    this.rev = ce.rev;
    this.window.push(ce);
    if (this.window.length > this.capacity) this.floor = this.window.splice(0, this.window.length - this.capacity).at(-1)!.rev;
    for (const w of this.watchers) if (!this.deliver(w, ce)) this.watchers.delete(w);
    this.waiters.reached(this.rev);
  }

  /** Resolves once the cache has caught up with revision rev (false after timeoutMs). */
  async waitFor(rev: number, timeoutMs = 3000): Promise<boolean> {
    await this.ready;
    if (this.rev >= rev) return true;
    // Writes elsewhere move the store's revision without an event here: ask the watch how far it got.
    // A watch may itself wait for rev (etcd's shared watch), so what is left of timeoutMs is waited after.
    const deadline = Date.now() + timeoutMs;
    const progressed = await this.storeWatch?.progress?.(rev, timeoutMs);
    if (progressed !== undefined && progressed > this.rev) this.rev = progressed;
    if (this.rev >= rev) return true;
    return this.waiters.wait(rev, Math.max(0, deadline - Date.now()));
  }

  async whenReady() { await this.ready; }

  /** Consistent reads can come from the cache only when the store's watch reports its progress. */
  async servesConsistentReads(): Promise<boolean> {
    await this.ready;
    return !!this.storeWatch?.progress;
  }

  /** The current state under a sub-prefix, ordered by key, at `this.rev`. */
  list(prefix: string): Entry[] {
    if (!this.sorted) this.sorted = [...this.items.keys()].sort();
    const keys = this.sorted;
    let lo = 0, hi = keys.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (keys[mid] < prefix) lo = mid + 1; else hi = mid; }
    const out: Entry[] = [];
    for (let i = lo; i < keys.length && keys[i].startsWith(prefix); i++) out.push(this.items.get(keys[i])!);
    return out;
  }

  get(key: string): Entry | undefined { return this.items.get(key); }

  /**
   * Registers a watcher for every event after `afterRev`. Returns false when the window no longer
   * holds those events (the caller then replays from the store).
   */
  watch(afterRev: number, w: CacheWatcher): boolean {
    if (afterRev < this.floor) return false;
    for (const ce of this.window) if (ce.rev > afterRev && !this.deliver(w, ce)) return true;
    this.watchers.add(w);
    return true;
  }

  /**
   * One event to one watcher; false when it takes no more (it was told why). Watchers are called in
   * the store's publishing turn: one that throws loses its watch, never the others their events.
   */
  private deliver(w: CacheWatcher, ce: CachedEvent): boolean {
    let err: unknown;
    try {
      if (w.push(ce)) return true;
      err = new StoreError("Unavailable", this.prefix, "watcher is too slow: its event queue is full");
    } catch (e) { err = e; }
    failSafely(w, err instanceof Error ? err : new Error(String(err)));
    return false;
  }

  unwatch(w: CacheWatcher) { this.watchers.delete(w); }

  /** Tells idle watchers how far the cache has got (drives bookmarks). */
  progress() {
    for (const w of this.watchers) {
      try { w.progress?.(this.rev); } catch (e) { this.watchers.delete(w); failSafely(w, e as Error); }
    }
  }

  close() {
    this.storeWatch?.close();
    for (const w of this.watchers) failSafely(w, new StoreError("Unavailable", this.prefix, "watch cache closed"));
    this.watchers.clear();
  }
}

/** Tells a watcher its watch ended; a watcher that throws even then is only dropped. */
function failSafely(w: CacheWatcher, err: Error) {
  try { w.fail(err); } catch { /* it is dropped either way */ }
}
