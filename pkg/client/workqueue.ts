// The controllers' work queue (client-go util/workqueue: Type, delaying and rate-limiting queues in one).
// - An item queued twice is queued once (dirty set).
// - An item being processed is never handed out twice: added again meanwhile, it waits until `done`.
// - `addAfter` holds an item for a while (the earliest of several times wins); `addRateLimited` waits
//   as long as the rate limiter says for the item's failure count; `forget` clears that count.
// - `shutDown` hands out what is queued, then `undefined` to every `get`; `shutDownWithDrain` also
//   waits until every item handed out is `done`.
import { defaultControllerRateLimiter, type RateLimiter } from "./ratelimiters.ts";

export interface WorkQueueOptions<T> {
  /** The limiter `addRateLimited` asks; the default controller rate limiter when unset. */
  rateLimiter?: RateLimiter<T>;
}

export class WorkQueue<T> {
  private queue: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly waiting = new Map<T, { readyAt: number; timer: ReturnType<typeof setTimeout> }>();
  private readonly getters: ((item: T | undefined) => void)[] = [];
  private drained?: () => void;
  private shutting = false;
  readonly rateLimiter: RateLimiter<T>;

  constructor(o: WorkQueueOptions<T> = {}) {
    this.rateLimiter = o.rateLimiter ?? defaultControllerRateLimiter<T>();
  }

  /** Items queued and not handed out yet. */
  len(): number { return this.queue.length - this.head; }
  shuttingDown(): boolean { return this.shutting; }

  add(item: T): void {
    if (this.shutting || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.push(item);
  }

  /** The next item, waiting for one; `undefined` once the queue is shut down and empty. */
  get(): Promise<T | undefined> {
    if (this.len() > 0) return Promise.resolve(this.take());
    if (this.shutting) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks an item processed; if it was added meanwhile it is queued again now. */
  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) this.push(item);
    else if (this.drained && this.processing.size === 0) this.drained();
  }

  /** Adds the item after delayMs (at once when ≤ 0). */
  addAfter(item: T, delayMs: number): void {
    if (this.shutting) return;
    if (delayMs <= 0) return this.add(item);
    const readyAt = performance.now() + delayMs;
    const prev = this.waiting.get(item);
    if (prev) {
      if (prev.readyAt <= readyAt) return;
      clearTimeout(prev.timer);
    }
    const timer = setTimeout(() => { this.waiting.delete(item); this.add(item); }, delayMs);
    this.waiting.set(item, { readyAt, timer });
  }

  /** Adds the item once the rate limiter allows (a failure counted against it). */
  addRateLimited(item: T): void { this.addAfter(item, this.rateLimiter.when(item)); }
  /** Forgets the item's failures (after it was processed successfully). */
  forget(item: T): void { this.rateLimiter.forget(item); }
  numRequeues(item: T): number { return this.rateLimiter.numRequeues(item); }

  /** Stops taking items: queued ones are still handed out, waiting getters get `undefined`. */
  shutDown(): void {
    if (this.shutting) return;
    this.shutting = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    for (const resolve of this.getters.splice(0)) resolve(undefined);
  }

  /** shutDown, then resolves once every item handed out has been marked `done`. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => { this.drained = resolve; });
  }

  private push(item: T): void {
    const getter = this.getters.shift();
    if (getter) {
      this.dirty.delete(item);
      this.processing.add(item);
      getter(item);
      return;
    }
    this.queue.push(item);
  }

  private take(): T {
    const item = this.queue[this.head]!;
    this.head++;
    // Drop the consumed prefix now and then, so a long-lived queue does not grow.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.dirty.delete(item);
    this.processing.add(item);
    return item;
  }
}
