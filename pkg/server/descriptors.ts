// Descriptor pressure. Bun shows no connection to JavaScript, so idle keep-alive connections can only be
// counted as the process's open descriptors; once they pass half the limit, every response closes its
// connection, so no client can hold descriptors until the server cannot accept anyone else. The count is
// read as responses go out (a burst of connections fills the table faster than any timer): every
// RECOUNT_MS near the line, less often the further below it the last count was, since connections cannot
// arrive faster than ACCEPTS_PER_MS (a directory read under load cost ~5 % of the server's CPU at 20 ms).
import { readdirSync, readFileSync } from "node:fs";

const RECOUNT_MS = 20;
const MAX_RECOUNT_MS = 5000;
/** More than a server accepts: ~10,000 connections a second. */
const ACCEPTS_PER_MS = 10;

export class DescriptorPressure {
  private readonly limit = softLimit();
  private next = 0;
  private over = false;

  /** True while open descriptors are above half the process's limit. */
  high(): boolean {
    if (!this.limit) return false; // not Linux: no /proc to read
    const now = performance.now();
    if (now >= this.next) {
      let open = Infinity;
      try {
        open = readdirSync("/proc/self/fd").length;
      } catch { /* out of descriptors for the read itself: that is pressure */ }
      this.over = open > this.limit / 2;
      const headroom = this.limit / 2 - open;
      this.next = now + Math.min(MAX_RECOUNT_MS, Math.max(RECOUNT_MS, headroom / ACCEPTS_PER_MS));
    }
    return this.over;
  }
}

function softLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"));
    const n = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}
