// Human-readable ages, by the rules of upstream's apimachinery duration.HumanDuration:
// ~2-3 significant figures, finer units while the value is small.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

/** A succinct duration such as "45s", "3m20s", "17m", "3h5m", "20h", "2d4h", "40d", "3y12d", "9y". */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  // Up to two seconds into the future is clock skew: treat it as now.
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;

  const minutes = Math.floor(ms / MINUTE);
  if (minutes < 10) return withRest(minutes, "m", seconds % 60, "s");
  if (minutes < 180) return `${minutes}m`;

  const hours = Math.floor(ms / HOUR);
  if (hours < 8) return withRest(hours, "h", minutes % 60, "m");
  if (hours < 48) return `${hours}h`;

  const days = Math.floor(hours / 24);
  if (hours < 8 * 24) return withRest(days, "d", hours % 24, "h");
  if (hours < 2 * 365 * 24) return `${days}d`;

  const years = Math.floor(days / 365);
  if (hours < 8 * 365 * 24) return withRest(years, "y", days % 365, "d");
  return `${Math.floor(ms / YEAR)}y`;
}

function withRest(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major}${majorUnit}` : `${major}${majorUnit}${minor}${minorUnit}`;
}

/** Go's zero time, 0001-01-01T00:00:00Z (Date.UTC would read year 1 as 1901). */
const ZERO = (() => {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime();
})();

/** Milliseconds since the epoch for an RFC 3339 timestamp; undefined when absent, unparsable or Go's zero time. */
export function parseTime(ts: unknown): number | undefined {
  if (typeof ts !== "string" || ts === "") return undefined;
  const t = Date.parse(ts);
  if (Number.isNaN(t) || t === ZERO) return undefined;
  return t;
}

/** The age of a timestamp at `now`, or "<unknown>" when it is unset (upstream's translateTimestampSince). */
export function since(ts: unknown, now: number): string {
  const t = parseTime(ts);
  return t === undefined ? "<unknown>" : humanDuration(now - t);
}

/** RFC 3339 in UTC without fractional seconds, as Go formats metav1.Time; Go's zero time when unset. */
export function rfc3339(ts: unknown): string {
  const t = parseTime(ts);
  if (t === undefined) return "0001-01-01T00:00:00Z";
  return new Date(t).toISOString().replace(/\.\d+Z$/, "Z");
}
