// A token bucket (client-go's flowcontrol.NewTokenBucketRateLimiter, after golang.org/x/time/rate): it
// holds `burst` tokens, refills `qps` per second, and a caller takes one per request. Taking from an empty
// bucket reserves a future token, so callers are served in order, each at its own time.

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(readonly qps: number, readonly burst: number) {
    if (!(qps > 0)) throw new Error(`qps must be greater than zero, got ${qps}`);
    if (!(burst >= 1)) throw new Error(`burst must be at least 1, got ${burst}`);
    this.tokens = burst;
    this.last = performance.now();
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
  }

  /** Takes a token now or in the future; returns how many milliseconds the caller must wait for it. */
  reserve(): number {
    this.refill(performance.now());
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  /** Takes a token only when one is there now. */
  tryAccept(): boolean {
    this.refill(performance.now());
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Resolves when the caller's token is due; an aborted signal rejects at once (the token stays spent). */
  async wait(signal?: AbortSignal): Promise<void> {
    const delay = this.reserve();
    if (delay > 0) await sleep(delay, signal);
  }
}

/** A sleep that an abort signal ends early (rejecting with the signal's reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
    const timer = setTimeout(() => { signal?.removeEventListener("abort", onAbort); resolve(); }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
