// Go's text forms of metav1.Time, metav1.MicroTime and time.Duration, which protobuf carries as numbers:
// parsed on the way in, printed exactly as Go prints them on the way out.
import { ProtobufError } from "./errors.ts";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 → [unix seconds, nanoseconds]; null when malformed. */
export function parseTime(s: string): [number, number] | null {
  const m = RFC3339.exec(s);
  if (!m) return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  if (Number.isNaN(ms)) return null;
  const offset = m[8] ? 0 : (m[9] === "-" ? -1 : 1) * (+m[10] * 3600 + +m[11] * 60);
  const nanos = m[7] ? Number(m[7].padEnd(9, "0")) : 0;
  return [ms / 1000 - offset, nanos];
}

/** Go's JSON form of metav1.Time (seconds, UTC) and, with `micro`, of metav1.MicroTime. */
export function formatTime(seconds: number, nanos: number, micro = false): string {
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) throw new ProtobufError(`malformed protobuf: time ${seconds} out of range`);
  const base = d.toISOString().slice(0, -5); // drop ".sssZ"
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`;
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, "µs": 1e3, "μs": 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };
const DURATION_PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** A Go duration string ("1h2m3.5s", "-300ms", "0") → nanoseconds; null when malformed. */
export function parseGoDuration(s: string): number | null {
  let str = s, sign = 1;
  if (str[0] === "-" || str[0] === "+") {
    sign = str[0] === "-" ? -1 : 1;
    str = str.slice(1);
  }
  if (str === "0") return 0;
  if (!str) return null;
  let total = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < str.length) {
    const m = DURATION_PART.exec(str);
    if (!m) return null;
    total += Number(m[1]) * DURATION_UNITS[m[2]];
  }
  return sign * Math.round(total);
}

function fraction(v: number, unit: number): string {
  const whole = Math.floor(v / unit);
  const rest = v - whole * unit;
  if (!rest) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** Nanoseconds → Go's Duration.String() ("1h0m0s", "1.5s", "300ms", "0s"). */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return "0s";
  let u = Math.abs(ns);
  let out: string;
  if (u < 1e9) {
    out = u < 1e3 ? `${u}ns` : u < 1e6 ? `${fraction(u, 1e3)}µs` : `${fraction(u, 1e6)}ms`;
  } else {
    const h = Math.floor(u / 3.6e12);
    u -= h * 3.6e12;
    const m = Math.floor(u / 6e10);
    u -= m * 6e10;
    out = `${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${fraction(u, 1e9)}s`;
  }
  return ns < 0 ? `-${out}` : out;
}
