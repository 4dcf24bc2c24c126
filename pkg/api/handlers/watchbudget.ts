// The server-wide bound on memory held for watchers that are behind. What it counts:
//  - queued event bytes, kept by reference: one event's bytes are shared by every watcher that sends it
//    (serialized.ts), so each distinct array is counted once however many queues hold it — the naive
//    per-watcher sum would count the same 200 KB event 2,000 times. It is an upper bound of what the
//    queues add: the watch cache may hold the same arrays anyway while the event is in its window.
//  - bytes handed to Bun that the socket has not taken: Bun copies them into the connection's buffer,
//    one copy per watcher, at most one write (outbox.ts PIECE) each. Counted in full, an upper bound:
//    the kernel took part of that write before the socket filled.
//  - the bookkeeping: a slot per queued reference in each queue, an entry per distinct array here.
// Not counted: the kernel's socket buffers (outside the process), and the queues of watchers whose
// sockets take what they are sent (written at the next shared flush). When a new byte would pass the
// limit, the watchers holding the most are let go first: a watcher still streaming is cut off (its queue
// dropped, an ERROR event sent), one already cut off and not reading is disconnected.

/** Default limit: room for a few thousand stuck sockets' writes plus the backlogs of many collections. */
export const DEFAULT_WATCH_MEMORY_BUDGET = 256 * 1024 * 1024;
/** A queue's slot for one reference (8 bytes, and an array's spare capacity). */
export const REF_COST = 16;
/** This budget's entry for one distinct array. */
const ENTRY_COST = 64;

/** A watcher that holds bytes. */
export interface Holder {
  /** Bytes this watcher holds, shared ones counted in full: the biggest holders are let go first. */
  readonly held: number;
  /** Lets it go: cut off if it is still streaming, disconnected if it already was. */
  evict(): void;
}

export class WatchBudget {
  private refs = new Map<Uint8Array, number>();
  /** Distinct queued arrays, each once. */
  private shared = 0;
  /** Bytes of one watcher each: Bun's copies, queue slots. */
  private own = 0;
  private holders = new Set<Holder>();

  constructor(public limit: number) {}

  /** The bytes counted now. */
  get total(): number { return this.shared + this.own; }

  /** What one more queue holding `b` would add. */
  cost(b: Uint8Array): number { return this.refs.has(b) ? REF_COST : b.length + ENTRY_COST + REF_COST; }

  hold(b: Uint8Array) {
    const n = this.refs.get(b) ?? 0;
    if (n === 0) this.shared += b.length + ENTRY_COST;
    this.refs.set(b, n + 1);
    this.own += REF_COST;
  }

  release(b: Uint8Array) {
    const n = this.refs.get(b) ?? 0;
    if (n === 0) return;
    if (n > 1) this.refs.set(b, n - 1);
    else { this.refs.delete(b); this.shared -= b.length + ENTRY_COST; }
    this.own -= REF_COST;
  }

  /** Bytes Bun copied (positive) or sent or dropped (negative). */
  copied(n: number) { this.own += n; }

  enter(h: Holder) { this.holders.add(h); }
  leave(h: Holder) { this.holders.delete(h); }

  /**
   * Makes room for `need` more bytes for `self` by letting go of the watchers that hold the most.
   * False when `self` holds the most (it is the one to go; the caller lets it go).
   */
  room(self: Holder, need: number): boolean {
    // A watcher let go leaves `holders` by its second eviction (cut off, then disconnected): this ends.
    for (let tries = 2 * this.holders.size + 1; this.total + need > this.limit && tries > 0; tries--) {
      let victim: Holder = self, most = self.held + need;
      for (const h of this.holders) if (h !== self && h.held > most) { most = h.held; victim = h; }
      if (victim === self) return false;
      victim.evict();
    }
    return this.total + need <= this.limit;
  }
}

/** The process's budget: every watch stream shares it. */
export const watchBudget = new WatchBudget(DEFAULT_WATCH_MEMORY_BUDGET);
