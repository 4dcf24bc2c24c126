// Upstream's flowcontrol.Backoff, as the DaemonSet controller paces the deletion of failed pods: per key a
// delay that starts at `initialMs` and doubles with each step up to `maxMs`; a key left alone for twice
// `maxMs` starts over (and is forgotten).
export class Backoff {
  private readonly entries = new Map<string, { delay: number; last: number }>();

  constructor(private readonly initialMs: number, private readonly maxMs: number) {}

  /** How long `key` still waits since its last step; 0 when it is not backing off (IsInBackOffSinceUpdate). */
  remaining(key: string, now = Date.now()): number {
    const e = this.entries.get(key);
    return e ? Math.max(0, e.last + e.delay - now) : 0;
  }

  /** A step for `key`: the delay doubles, or starts over after a long quiet (Next). */
  next(key: string, now = Date.now()): void {
    this.gc(now);
    const e = this.entries.get(key);
    if (!e) this.entries.set(key, { delay: this.initialMs, last: now });
    else Object.assign(e, { delay: Math.min(2 * e.delay, this.maxMs), last: now });
  }

  private gc(now: number): void {
    for (const [k, e] of this.entries) if (now - e.last > 2 * this.maxMs) this.entries.delete(k);
  }
}
