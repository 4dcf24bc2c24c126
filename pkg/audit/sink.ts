// How events reach a backend (the log file, the webhook): the --audit-*-mode (blocking, blocking-strict,
// batch with its buffer, batch size and wait, and throttle) around the truncating step.
import type { AuditEvent } from "./event.ts";
import { truncated } from "./event.ts";
import type { AuditMetrics } from "./metrics.ts";

/** Where events end up; `send` throws when they could not be recorded. */
export interface Backend {
  readonly name: "log" | "webhook";
  send(events: AuditEvent[]): void | Promise<void>;
  close?(): void;
}

export interface BatchOptions { bufferSize: number; maxSize: number; maxWaitMs: number; throttle?: { qps: number; burst: number } }
export interface TruncateOptions { maxBatchBytes: number; maxEventBytes: number }

export interface SinkOptions {
  mode: "blocking" | "blocking-strict" | "batch";
  batch: BatchOptions;
  truncate?: TruncateOptions;
}

/** A token bucket: `take` waits until the rate allows one more batch. */
class Throttle {
  private tokens: number;
  private last = performance.now();
  constructor(private qps: number, private burst: number) { this.tokens = burst; }
  async take() {
    for (;;) {
      const now = performance.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
      this.last = now;
      if (this.tokens >= 1) { this.tokens--; return; }
      await Bun.sleep(((1 - this.tokens) / this.qps) * 1000);
    }
  }
}

export class Sink {
  private queue: AuditEvent[] = [];
  private timer?: Timer;
  private sending = Promise.resolve();
  private throttle?: Throttle;

  constructor(private backend: Backend, readonly o: SinkOptions, private metrics: AuditMetrics) {
    const t = o.batch.throttle;
    if (o.mode === "batch" && t && t.qps > 0) this.throttle = new Throttle(t.qps, Math.max(1, t.burst));
  }

  /**
   * Records one event. Blocking modes write before the request goes on (a webhook is awaited); in
   * blocking-strict a failure is thrown back. Batch mode queues it, dropping it when the buffer is full.
   */
  async emit(ev: AuditEvent): Promise<void> {
    if (this.o.mode === "batch") {
      if (this.queue.length >= this.o.batch.bufferSize) return this.failed(1, "buffered");
      this.queue.push(ev);
      if (this.queue.length >= this.o.batch.maxSize) this.flushSoon(0);
      else this.flushSoon(this.o.batch.maxWaitMs);
      return;
    }
    try {
      await this.deliver([ev]);
    } catch (e) {
      if (this.o.mode === "blocking-strict") throw e;
    }
  }

  /** A full batch goes now; what is left waits for max-wait. */
  private flushSoon(ms: number) {
    if (ms === 0) { this.sending = this.sending.then(() => this.drain(false)); return; }
    this.timer ??= setTimeout(() => { this.timer = undefined; this.sending = this.sending.then(() => this.drain(true)); }, ms);
  }

  /** Sends full batches (with `all`, the last partial one too), each after the throttle allows it. */
  private async drain(all: boolean) {
    while (this.queue.length >= this.o.batch.maxSize || (all && this.queue.length)) {
      const batch = this.queue.splice(0, this.o.batch.maxSize);
      await this.throttle?.take();
      await this.deliver(batch).catch(() => {});
    }
  }

  /** Truncates (when enabled), splits by bytes, sends; failures are counted per event and rethrown. */
  private async deliver(events: AuditEvent[]) {
    const t = this.o.truncate;
    let batches = [events];
    if (t) {
      const fit: AuditEvent[] = [];
      for (const ev of events) {
        const small = truncated(ev, t.maxEventBytes);
        if (small) fit.push(small); else this.failed(1, "truncate");
      }
      batches = splitByBytes(fit, t.maxBatchBytes);
    }
    for (const b of batches) {
      if (!b.length) continue;
      try {
        await this.backend.send(b);
      } catch (e) {
        this.failed(b.length, this.backend.name);
        throw e;
      }
    }
  }

  private failed(n: number, plugin: string) {
    this.metrics.errors.labels(plugin).inc(n);
  }

  /** Sends what is still queued (shutdown). */
  async close() {
    clearTimeout(this.timer);
    this.sending = this.sending.then(() => this.drain(true));
    await this.sending;
    this.backend.close?.();
  }
}

function splitByBytes(events: AuditEvent[], max: number): AuditEvent[][] {
  const out: AuditEvent[][] = [[]];
  let size = 0;
  for (const ev of events) {
    const n = JSON.stringify(ev).length;
    if (size + n > max && out.at(-1)!.length) { out.push([]); size = 0; }
    out.at(-1)!.push(ev);
    size += n;
  }
  return out;
}
