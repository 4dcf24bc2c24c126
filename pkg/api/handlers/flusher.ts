// Watch streams flush together. A flush costs the server a TLS record and a syscall per watcher, and the
// client as much again; with a thousand watchers and hundreds of commits a second, sending every commit
// to every watcher on its own is what saturates a machine. So after a flush of many streams the next one
// waits half as long as that flush took: a quiet server or a small fan-out flushes at once (the wait is
// microseconds), a large fan-out under load carries several commits in one write per watcher, and
// flushing takes at most two thirds of the server's time. A pass that runs long (thousands of watchers
// each sent a large event) stops and leaves the rest for the next, so requests are served in between.

/** The longest a written event waits for its flush. */
const MAX_WAIT_MS = 10;
/** The longest one pass runs before the event loop turns. */
const MAX_PASS_MS = 50;

export class Flusher {
  private dirty = new Set<() => void>();
  private scheduled = false;
  private lastEnd = 0;
  private lastCost = 0;

  /** Asks for `flush` to run in the next shared flush (once however often it is marked). */
  mark(flush: () => void) {
    this.dirty.add(flush);
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.lastEnd + Math.min(this.lastCost / 2, MAX_WAIT_MS) - performance.now();
    if (wait <= 0) queueMicrotask(this.run);
    else setTimeout(this.run, wait);
  }

  private run = () => {
    const start = performance.now();
    const due = this.dirty;
    this.dirty = new Set();
    this.scheduled = true; // streams marked during the pass join the next one
    let n = 0;
    for (const flush of due) {
      due.delete(flush);
      // One stream's failure is reported, and the others still flush.
      try { flush(); } catch (e) { queueMicrotask(() => { throw e; }); }
      if (++n % 4 === 0 && performance.now() - start > MAX_PASS_MS) break;
    }
    this.lastEnd = performance.now();
    this.lastCost = this.lastEnd - start;
    // Streams this pass did not reach go first in the next.
    for (const flush of this.dirty) due.add(flush);
    this.dirty = due;
    this.scheduled = due.size > 0;
    if (this.scheduled) setTimeout(this.run, Math.min(this.lastCost / 2, MAX_WAIT_MS));
  };
}

let lastParts: Uint8Array[] = [];
let lastJoined: Uint8Array = new Uint8Array();

/**
 * The parts as one buffer. Watchers of a collection are mostly sent the same events (each event's bytes
 * are encoded once and shared), so the last joined batch is reused when the parts are the same objects.
 */
export function joined(parts: Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  if (parts.length === lastParts.length && parts.every((p, i) => p === lastParts[i])) return lastJoined;
  lastParts = parts;
  lastJoined = Buffer.concat(parts, bytes);
  return lastJoined;
}

/** The process's flusher: every watch stream shares it. */
export const flusher = new Flusher();
