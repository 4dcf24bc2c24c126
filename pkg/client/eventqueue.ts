// The write side shared by both event broadcasters (events.k8s.io/v1 in events.ts, core/v1 in
// corev1events.ts): a caller never waits. An entry is queued at most once (a change while it is queued
// rides along; one while it is being written writes it again afterwards); writes run a few at a time,
// at most `qps` per second (upstream's rate-limited events client; 0: unlimited); one the server did not
// answer is tried again after retryDelayMs (±25%) up to maxTries; failures are logged, never thrown.
import { log } from "./log.ts";
import { sleep, TokenBucket } from "./ratelimit.ts";

export interface EventQueueOptions {
  /** Writes waiting at most (1000, upstream's queue); more are dropped. */
  maxQueued?: number;
  /** Writes in flight at once. */
  concurrency?: number;
  /** Wait before retrying a write the server did not answer (ms; 10 s, ±25%). */
  retryDelayMs?: number;
  /** Tries per write before it is given up (12). */
  maxTries?: number;
  /** Writes per second at most, with bursts of `burst` (0: unlimited, the default). */
  qps?: number;
  burst?: number;
}

/** One event waiting to be written (or being written), with the queue's bookkeeping. */
export interface Pending {
  queued: boolean;
  writing: boolean;
  /** Written again once the write in flight ends (it changed meanwhile). */
  again: boolean;
  tries: number;
  /** `<namespace>/<name>` and reason, for log lines. */
  name: string;
  reason: string;
}

export const pending = (name: string, reason: string): Pending => ({ queued: false, writing: false, again: false, tries: 0, name, reason });

/** A write: resolves to an error worth retrying, or undefined when done (it logs what it gives up itself). */
export type EventWrite<P extends Pending> = (p: P) => Promise<Error | undefined>;

export class EventQueue<P extends Pending> {
  private readonly queue: P[] = [];
  private inFlight = 0;
  /** Writes waiting out a retry delay (flush() waits for them too). */
  private retrying = 0;
  private idle: (() => void)[] = [];
  /** Events dropped since the queue last filled up. */
  private dropped = 0;
  private readonly bucket?: TokenBucket;
  private readonly o: Required<Omit<EventQueueOptions, "qps" | "burst">>;

  constructor(private readonly write: EventWrite<P>, options: EventQueueOptions = {}) {
    this.o = { maxQueued: 1000, concurrency: 8, retryDelayMs: 10_000, maxTries: 12, ...options };
    if (options.qps && options.qps > 0) this.bucket = new TokenBucket(options.qps, Math.max(1, options.burst ?? 1));
  }

  /** Resolves once every queued write has been made (or given up). */
  flush(): Promise<void> {
    if (!this.busy()) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  enqueue(e: P): void {
    if (e.writing) { e.again = true; return; }
    if (e.queued) return;
    if (this.queue.length >= this.o.maxQueued) {
      // one line per episode, not one per event: a flood of events must not become a flood of log lines
      if (this.dropped++ === 0) log(`events: the queue is full (${this.o.maxQueued}); dropping event ${e.name} (${e.reason}) and any more until it drains`);
      return;
    }
    e.queued = true;
    this.queue.push(e);
    this.pump();
  }

  private busy(): boolean { return this.queue.length > 0 || this.inFlight > 0 || this.retrying > 0; }

  private settle(): void {
    if (this.dropped > 0 && this.queue.length === 0) {
      log(`events: ${this.dropped} events were dropped while the queue was full`);
      this.dropped = 0;
    }
    if (!this.busy()) for (const resolve of this.idle.splice(0)) resolve();
  }

  private pump(): void {
    while (this.inFlight < this.o.concurrency && this.queue.length) {
      const e = this.queue.shift()!;
      e.queued = false;
      e.writing = true;
      this.inFlight++;
      void this.attempt(e).finally(() => {
        this.inFlight--;
        e.writing = false;
        if (e.again) { e.again = false; this.enqueue(e); }
        this.pump();
        this.settle();
      });
    }
  }

  private async attempt(e: P): Promise<void> {
    const delay = this.bucket?.reserve() ?? 0;
    if (delay > 0) await sleep(delay);
    const err = await this.write(e);
    if (!err) { e.tries = 0; return; }
    if (++e.tries >= this.o.maxTries) {
      log(`Unable to write event '${e.name}' (retry limit exceeded!): ${err.message}`);
      e.tries = 0;
      return;
    }
    log(`Unable to write event '${e.name}': '${err.message}' (may retry after sleeping)`);
    this.retrying++;
    setTimeout(() => { this.retrying--; this.enqueue(e); this.settle(); }, this.o.retryDelayMs * (1 + Math.random() * 0.25));
  }
}
