// Writes with large bodies take their turn. Decoding, validating and tracking the fields of a
// 50,000-key object is ~0.5 s of synchronous work; JavaScript runs one handler at a time, so eight of
// them at once would hold every other request — /readyz included — for seconds. One at a time, the
// longest any other request waits is one such stretch.

/** Bodies from this size (or of unknown size) take a turn. */
export const HEAVY_BODY_BYTES = 256 * 1024;

export class Turns {
  private busy = false;
  private waiting: (() => void)[] = [];

  /** Resolves when it is the caller's turn; the caller must call the returned release once. */
  async take(): Promise<() => void> {
    if (this.busy) await new Promise<void>((r) => this.waiting.push(r));
    this.busy = true;
    return () => {
      const next = this.waiting.shift();
      // The next turn starts after the event loop has polled for I/O, so waiting requests get in between.
      if (next) setImmediate(next);
      else this.busy = false;
    };
  }
}

/** Whether a request's body is large (or chunked, so of unknown size). */
export function isHeavy(req: Request): boolean {
  const length = req.headers.get("content-length");
  if (length === null) return req.headers.has("transfer-encoding");
  return Number(length) >= HEAVY_BODY_BYTES;
}
