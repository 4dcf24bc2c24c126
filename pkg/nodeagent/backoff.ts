// CrashLoopBackOff as upstream's flowcontrol.Backoff (10 s doubling to 5 min): a container's first
// restart is immediate; one that exits again within its current backoff of its last restart waits it
// out. An entry quiet for twice the maximum (10 minutes) starts over.
export const BACKOFF_INITIAL_MS = 10_000;
export const BACKOFF_MAX_MS = 5 * 60_000;

interface Entry { backoffMs: number; lastUpdate: number }

export class CrashLoopBackoff {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly initialMs = BACKOFF_INITIAL_MS, private readonly maxMs = BACKOFF_MAX_MS, private readonly now = Date.now) {}

  private expired(e: Entry, at: number): boolean { return at - e.lastUpdate > 2 * this.maxMs; }

  /** How long a container that finished at `finishedAt` must still wait before its restart (0: none). */
  remaining(key: string, finishedAt: number): number {
    const e = this.entries.get(key);
    if (!e || this.expired(e, finishedAt)) return 0;
    return Math.max(0, finishedAt + e.backoffMs - this.now());
  }

  /** The backoff a waiting container is in, for its message. */
  current(key: string): number { return this.entries.get(key)?.backoffMs ?? 0; }

  /** Records a restart now: the next early exit waits twice as long (up to the maximum). */
  next(key: string): void {
    const now = this.now(), e = this.entries.get(key);
    const backoffMs = !e || this.expired(e, now) ? this.initialMs : Math.min(e.backoffMs * 2, this.maxMs);
    this.entries.set(key, { backoffMs, lastUpdate: now });
  }

  forget(prefix: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}
