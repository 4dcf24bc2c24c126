// Durations as the spec writes them (`2m0s`, `1h0m0s`, `500ms`).

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go-style duration into milliseconds; throws on a malformed value. */
export function parseDuration(s: string): number {
  const str = s.trim();
  if (str === "0") return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0, pos = 0;
  while (pos < str.length) {
    re.lastIndex = pos;
    const m = re.exec(str);
    if (!m) throw new Error(`invalid duration "${s}"`);
    total += Number(m[1]) * UNITS[m[2]];
    pos = re.lastIndex;
  }
  if (pos === 0) throw new Error(`invalid duration "${s}"`);
  return total;
}

/** Formats milliseconds as Go prints durations: `2m0s`, `1h0m0s`, `1.5s`, `500ms`, `0s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000), m = Math.floor((ms % 3_600_000) / 60_000), s = (ms % 60_000) / 1000;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}
