// The one etcd watch of a store's whole key range that feeds every watch cache (Store.listAndWatch).
import type { EtcdStore } from "./etcd.ts";
import { GrpcWatch } from "./etcdgrpc.ts";
import { EtcdWatcher } from "./etcdwatch.ts";
import { StoreError, type WatchEvent } from "./store.ts";
import { RevisionWaiters } from "./waiters.ts";

export interface Subscriber { prefix: string; after: number; onEvent: (ev: WatchEvent) => void; onError: (err: Error) => void }

/**
 * One etcd watch of the store's whole key range, shared by every watch cache. Every write in etcd moves
 * its position (`pos`: every event up to it has been dispatched), so a cache fed by it is current at
 * `pos`, and a consistent read can be served from the cache once `pos` reaches the store's current
 * revision. This needs no progress notifications (trusted upstream only from etcd 3.4.31 / 3.5.13).
 */
export class SharedWatch {
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
