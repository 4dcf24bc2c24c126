// The work queue's rate limiters (client-go util/workqueue): how long an item waits before it is handed
// out again after a failure. `when` counts a failure and returns the delay in milliseconds; `forget`
// clears an item's history once it was processed successfully.
import { TokenBucket } from "./ratelimit.ts";

export interface RateLimiter<T> {
  when(item: T): number;
  forget(item: T): void;
  numRequeues(item: T): number;
}

/** base·2^failures per item, at most max (ItemExponentialFailureRateLimiter). */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(readonly baseMs: number, readonly maxMs: number) {}

  when(item: T): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    // 2^n overflows to Infinity long before it matters; the cap handles both.
    const delay = this.baseMs * 2 ** n;
    return delay > this.maxMs ? this.maxMs : delay;
  }

  forget(item: T): void { this.failures.delete(item); }
  numRequeues(item: T): number { return this.failures.get(item) ?? 0; }
}

/** fastMs for the first maxFastAttempts failures of an item, slowMs after (ItemFastSlowRateLimiter). */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(readonly fastMs: number, readonly slowMs: number, readonly maxFastAttempts: number) {}

  when(item: T): number {
    const n = (this.failures.get(item) ?? 0) + 1;
    this.failures.set(item, n);
    return n <= this.maxFastAttempts ? this.fastMs : this.slowMs;
  }

  forget(item: T): void { this.failures.delete(item); }
  numRequeues(item: T): number { return this.failures.get(item) ?? 0; }
}

/** One token bucket over all items (BucketRateLimiter): an overall retry rate, no per-item history. */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private readonly bucket: TokenBucket;

  constructor(qps: number, burst: number) { this.bucket = new TokenBucket(qps, burst); }

  when(_item: T): number { return this.bucket.reserve(); }
  forget(_item: T): void {}
  numRequeues(_item: T): number { return 0; }
}

/** The longest delay of several limiters (MaxOfRateLimiter); every one counts each failure. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) { this.limiters = limiters; }

  when(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(item));
    return max;
  }

  forget(item: T): void { for (const l of this.limiters) l.forget(item); }

  numRequeues(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/** DefaultControllerRateLimiter: per item 5 ms doubling to 1000 s, and 10 qps with a burst of 100 overall. */
export function defaultControllerRateLimiter<T>(): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(new ItemExponentialFailureRateLimiter<T>(5, 1000_000), new BucketRateLimiter<T>(10, 100));
}
