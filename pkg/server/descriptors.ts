// Descriptor pressure. Bun shows no connection to JavaScript, so idle keep-alive connections can only be
// counted as the process's open descriptors; once they pass half the limit, every response closes its
// connection, so no client can hold descriptors until the server cannot accept anyone else. The count is
// read as responses go out (a burst of connections fills the table faster than any timer), at most every
// RECOUNT_MS: a directory read of a few dozen entries normally, of thousands only under such a burst.
import { readdirSync, readFileSync } from "node:fs";

const RECOUNT_MS = 20;

export class DescriptorPressure {
  private readonly limit = softLimit();
  private last = 0;
  private over = false;

  /** True while open descriptors are above half the process's limit. */
  high(): boolean {
    if (!this.limit) return false; // not Linux: no /proc to read
    const now = performance.now();
    if (now - this.last >= RECOUNT_MS) {
      this.last = now;
      try {
        this.over = readdirSync("/proc/self/fd").length > this.limit / 2;
      } catch { /* out of descriptors for the read itself: that is pressure */
        this.over = true;
      }
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
