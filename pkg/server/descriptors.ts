// Descriptor pressure. Bun shows no connection to JavaScript, so idle keep-alive connections can only be
// counted as the process's open descriptors; once they pass half the limit, every response closes its
// connection, so no client can hold descriptors until the server cannot accept anyone else.
import { readdirSync, readFileSync } from "node:fs";

const POLL_MS = 250;

export class DescriptorPressure {
  /** True while open descriptors are above half the process's limit. */
  high = false;
  private timer?: Timer;
  private readonly limit = softLimit();

  start() {
    if (!this.limit) return; // not Linux: no /proc to read
    this.timer = setInterval(() => {
      try {
        this.high = readdirSync("/proc/self/fd").length > this.limit! / 2;
      } catch { /* /proc went away: keep the last answer */ }
    }, POLL_MS);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
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
