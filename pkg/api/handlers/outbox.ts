// One watch stream's bytes on their way to its socket. Bun copies whatever a write cannot hand to the
// kernel into the connection's own buffer, one copy per watcher, while the bytes of an event are shared
// by every watcher that sends it (serialized.ts). So a watcher whose socket is full keeps its backlog
// here, by reference, and Bun gets one piece at a time, when the socket has taken the last. A watcher
// is cut off once MAX_BACKLOG arrives for it while its socket stays full; what all of them hold together
// is bounded by the budget (watchbudget.ts).
import { flusher, joined } from "./flusher.ts";
import { type Holder, REF_COST, watchBudget as budget } from "./watchbudget.ts";

/** The most bytes one write hands to Bun: what Bun may keep copied per stuck watcher. */
export const PIECE = 16 * 1024;
/** The most bytes one flush writes (encrypting them takes time); the rest waits for the next pass. */
const FLUSH_BYTES = 256 * 1024;
/** Bytes that may arrive for a watcher while its socket stays full before it is cut off. */
export const MAX_BACKLOG = 4 * 1024 * 1024;
/** How long a watcher that was cut off, or is closing, may read nothing before it is disconnected. */
export const DRAIN_MS = 10_000;

export interface OutboxEvents {
  /** The watcher fell too far behind, or the budget needs its bytes: cut it off (end with an ERROR). */
  overflow(): void;
  /** Everything is out (or dropped) and the stream is closed. */
  finished(): void;
}

export class Outbox implements Holder {
  private parts: Uint8Array[] = [];
  /** The first part not fully written, and how much of it was. */
  private head = 0;
  private offset = 0;
  /** Bytes queued and not yet handed to Bun. */
  private queued = 0;
  /** Bytes of the write Bun has not sent yet (it answered with a promise): the socket is full. */
  private inflight = 0;
  /** The queue's parts are held in the budget (from the moment the socket filled until the queue empties). */
  private counted = false;
  /** Bytes queued since the socket last took something while full: what the client did not keep up with. */
  private stalled = 0;
  private ending = false;
  /** Ending for a shutdown: a socket that fills is not waited for. */
  private hurried = false;
  private done = false;
  private deadline?: Timer;

  constructor(private controller: ReadableStreamDirectController, private on: OutboxEvents, private drainMs = DRAIN_MS) {}

  get held(): number { return this.queued + this.inflight + (this.parts.length - this.head) * REF_COST; }

  /** Queues bytes; false once the stream is ending (or was cut off by this push). */
  push(b: Uint8Array): boolean {
    if (this.ending || this.done) return false;
    if (this.inflight > 0 && (this.stalled += b.length) > MAX_BACKLOG) {
      this.on.overflow();
      return false;
    }
    if (this.counted) {
      const cost = budget.cost(b);
      if (budget.total + cost > budget.limit && !budget.room(this, cost)) {
        this.evict();
        return false;
      }
      budget.hold(b);
    }
    if (this.queued === 0 && this.inflight === 0) flusher.mark(this.flush);
    this.parts.push(b);
    this.queued += b.length;
    return true;
  }

  /**
   * No more events. What is queued goes out and the stream closes; if the socket is full, the queue is
   * dropped (at an event boundary) and `last` (an ERROR event) follows the write in progress. `patient`
   * false: a watcher that is behind is disconnected at once (shutdown).
   */
  end(last?: Uint8Array, patient = true) {
    if (this.ending || this.done) return;
    this.ending = true;
    this.hurried = !patient;
    if (this.inflight > 0) {
      if (this.hurried) return this.abort();
      this.truncate();
    }
    if (last) {
      if (this.counted) budget.hold(last);
      this.parts.push(last);
      this.queued += last.length;
    }
    this.deadline = setTimeout(() => this.abort(), this.drainMs);
    if (this.inflight === 0) flusher.mark(this.flush);
  }

  /** The client went away: nothing more to send. */
  gone() {
    if (this.done) return;
    this.done = true;
    this.forget();
    this.on.finished();
  }

  /** Budget pressure: a streaming watcher is cut off, one already ending is disconnected. */
  evict() {
    if (this.ending) this.abort();
    else this.on.overflow();
  }

  /** Writes pieces while the socket takes them; the shared flush calls it. */
  flush = () => {
    if (this.done || this.inflight > 0) return;
    let wrote = 0;
    while (this.queued > 0) {
      if (wrote >= FLUSH_BYTES) {
        this.controller.flush();
        return flusher.mark(this.flush);
      }
      const piece = this.piece();
      if (budget.total + piece.length > budget.limit && !budget.room(this, piece.length)) return this.evict();
      if (this.done || this.inflight > 0) return; // making room let this very watcher go
      let r: number | Promise<number>;
      try { r = this.controller.write(piece); } catch { return this.gone(); } // the stream was closed under it
      this.consume(piece.length);
      wrote += piece.length;
      if (r instanceof Promise) return this.block(r, piece.length);
    }
    if (wrote) this.controller.flush();
    if (this.counted) {
      this.counted = false; // caught up: nothing queued is held any more
      budget.leave(this);
    }
    if (this.ending) this.close();
  };

  /** The next write: a run of small parts joined (shared with watchers sending the same), or a slice of a large one. */
  private piece(): Uint8Array {
    const first = this.parts[this.head];
    if (this.offset > 0 || first.length >= PIECE) return first.subarray(this.offset, this.offset + PIECE);
    let end = this.head + 1, bytes = first.length;
    while (end < this.parts.length && bytes + this.parts[end].length <= PIECE) bytes += this.parts[end++].length;
    return end === this.head + 1 ? first : joined(this.parts.slice(this.head, end), bytes);
  }

  private consume(n: number) {
    this.queued -= n;
    while (n > 0) {
      const part = this.parts[this.head];
      const take = Math.min(n, part.length - this.offset);
      this.offset += take;
      n -= take;
      if (this.offset === part.length) {
        if (this.counted) budget.release(part);
        this.head++;
        this.offset = 0;
      }
    }
    if (this.head === this.parts.length) this.parts = [], this.head = 0;
    else if (this.head > 1024 && this.head * 2 > this.parts.length) this.parts = this.parts.slice(this.head), this.head = 0;
  }

  /** The socket is full: the queue is counted from now until it empties. */
  private block(r: Promise<number>, n: number) {
    if (this.hurried) return this.abort();
    this.inflight = n;
    budget.copied(n);
    if (!this.counted) {
      this.counted = true;
      for (let i = this.head; i < this.parts.length; i++) budget.hold(this.parts[i]);
    }
    budget.enter(this);
    r.then(this.drained, this.drained);
  }

  private drained = () => {
    budget.copied(-this.inflight);
    this.inflight = 0;
    this.stalled = 0;
    if (this.done) return;
    if (this.ending) this.deadline?.refresh(); // it reads: the deadline counts from now
    if (this.queued === 0) {
      this.counted = false;
      budget.leave(this);
      if (this.ending) this.close();
    } else flusher.mark(this.flush);
  };

  /** Drops what is queued, except the rest of an event partly written (the client must not get half of one). */
  private truncate() {
    const keep = this.offset > 0 ? this.head + 1 : this.head;
    for (let i = keep; i < this.parts.length; i++) {
      if (this.counted) budget.release(this.parts[i]);
      this.queued -= this.parts[i].length;
    }
    this.parts.length = keep;
    if (keep === this.head) this.parts = [], this.head = 0;
  }

  private close() {
    if (this.done) return;
    this.done = true;
    this.forget();
    try { this.controller.close(); } catch { /* the client went away */ }
    this.on.finished();
  }

  /** Disconnects: Bun drops its copy with the connection (a stream closed with an error is not completed). */
  private abort() {
    if (this.done) return;
    this.done = true;
    this.forget();
    try { this.controller.close(new Error("watch stream dropped: the client did not read it")); } catch { /* already gone */ }
    this.on.finished();
  }

  /** Releases what the budget counts for this stream. */
  private forget() {
    clearTimeout(this.deadline);
    if (this.counted) for (let i = this.head; i < this.parts.length; i++) budget.release(this.parts[i]);
    this.parts = [];
    this.head = this.offset = this.queued = 0;
    this.counted = false;
    budget.copied(-this.inflight);
    this.inflight = 0;
    budget.leave(this);
  }
}
