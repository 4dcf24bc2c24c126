// Long synchronous loops (decoding a page of a huge list, encoding a large body) give the event loop a
// turn every SLICE_MS: JavaScript runs one handler at a time, so without the turns /readyz and every
// other request wait behind them for seconds.

/** How long one slice of synchronous work keeps the event loop. */
export const SLICE_MS = 10;

/** Resolves after the event loop has polled for I/O once. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A loop's clock: `due()` says the loop has held the event loop for a slice and should `await pause()`. */
export class Slices {
  private start = performance.now();
  private steps = 0;
  private weight = 0;

  due(): boolean { return performance.now() - this.start >= SLICE_MS; }

  /**
   * `due()` for a loop of many cheap steps: the clock is read only every 32 steps or 64 KB of `bytes`
   * (what a step's cost grows with), since reading it costs more than a step that finds its work done.
   */
  dueAfter(bytes: number): boolean {
    this.weight += bytes;
    if (++this.steps < 32 && this.weight < 64 << 10) return false;
    this.steps = this.weight = 0;
    return this.due();
  }

  async pause() {
    await nextTurn();
    this.start = performance.now();
  }
}
