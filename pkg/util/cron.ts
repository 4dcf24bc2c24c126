// Cron schedules as upstream's CronJob controller reads them: robfig/cron v3's standard parser (five
// fields — minute, hour, day of month, month, day of week — with ranges, steps, lists, month and day
// names, `*`/`?`, the @yearly/@annually/@monthly/@weekly/@daily/@midnight/@hourly descriptors, `@every
// <duration>`, and a `TZ=`/`CRON_TZ=` prefix), with its error texts, and its search for the next time in
// the schedule's zone (the process's local time unless the prefix names one).

type Bounds = { min: number; max: number; names?: Record<string, number> };

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const MINUTE: Bounds = { min: 0, max: 59 }, HOUR: Bounds = { min: 0, max: 23 }, DOM: Bounds = { min: 1, max: 31 };
const MONTH: Bounds = { min: 1, max: 12, names: MONTHS }, DOW: Bounds = { min: 0, max: 6, names: DAYS };
const FIELDS = [MINUTE, HOUR, DOM, MONTH, DOW];

/** The values a field allows; `star` when written `*` or `?` (without a step above 1), which dayMatches reads. */
interface Field { values: Set<number>; star: boolean }

/** Wall-clock fields of an instant in a zone, and the instant of wall-clock fields (Go's time.Date: overflow normalizes). */
export interface Zone {
  fields(ms: number): { year: number; month: number; day: number; hour: number; minute: number; second: number; weekday: number };
  make(year: number, month: number, day: number, hour: number, minute: number, second: number): number;
}

const LOCAL: Zone = {
  fields(ms) { const d = new Date(ms); return { year: d.getFullYear(), month: d.getMonth() + 1, day: d.getDate(), hour: d.getHours(), minute: d.getMinutes(), second: d.getSeconds(), weekday: d.getDay() }; },
  make: (y, mo, d, h, mi, s) => new Date(y, mo - 1, d, h, mi, s).getTime(),
};

/** A named IANA zone through Intl; throws as Go's LoadLocation does for an unknown one. */
function namedZone(name: string): Zone {
  if (name === "UTC" || name === "") return namedUTC;
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat("en-US", { timeZone: name, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", weekday: "short" });
  } catch {
    throw new Error(`provided bad location ${name}: unknown time zone ${name}`);
  }
  const fields = (ms: number) => {
    const p = Object.fromEntries(fmt.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
    return { year: Number(p.year), month: Number(p.month), day: Number(p.day), hour: Number(p.hour), minute: Number(p.minute), second: Number(p.second), weekday: (DAYS as Record<string, number>)[p.weekday.toLowerCase()] };
  };
  const offset = (ms: number) => { const f = fields(ms); return Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second) - Math.floor(ms / 1000) * 1000; };
  return {
    fields,
    make(y, mo, d, h, mi, s) {
      const wall = Date.UTC(y, mo - 1, d, h, mi, s);
      const guess = wall - offset(wall);
      return wall - offset(guess);
    },
  };
}

const namedUTC: Zone = {
  fields(ms) { const d = new Date(ms); return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), weekday: d.getUTCDay() }; },
  make: (y, mo, d, h, mi, s) => Date.UTC(y, mo - 1, d, h, mi, s),
};

export interface Schedule {
  /** The first time in the schedule strictly after `ms` (whole seconds), or undefined when none comes within 5 years. */
  next(ms: number): number | undefined;
}

/** Go's strconv.Atoi, as the parser calls it: an optional sign and decimal digits. */
function toInt(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`failed to parse int from ${s}: strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${s}`);
  return n;
}

const intOrName = (s: string, b: Bounds) => b.names?.[s.toLowerCase()] ?? toInt(s);

/** One comma-separated part of a field: `*`, `N`, `N-M`, each with an optional `/step`. */
function addRange(expr: string, b: Bounds, into: Field): void {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = rangeAndStep[0].split("-");
  let start: number, end: number, star = false;
  if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") [start, end, star] = [b.min, b.max, true];
  else {
    start = intOrName(lowAndHigh[0], b);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1], b);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = toInt(rangeAndStep[1]);
    if (lowAndHigh.length === 1) end = b.max; // "N/step" is "N-max/step"
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < b.min) throw new Error(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new Error(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  for (let v = start; v <= end; v += step) into.values.add(v);
  into.star ||= star;
}

function parseField(text: string, b: Bounds): Field {
  const f: Field = { values: new Set(), star: false };
  for (const part of text.split(",")) addRange(part, b, f);
  return f;
}

const DESCRIPTORS: Record<string, string[]> = {
  "@yearly": ["0", "0", "1", "1", "*"], "@annually": ["0", "0", "1", "1", "*"],
  "@monthly": ["0", "0", "1", "*", "*"], "@weekly": ["0", "0", "*", "*", "0"],
  "@daily": ["0", "0", "*", "*", "*"], "@midnight": ["0", "0", "*", "*", "*"], "@hourly": ["0", "*", "*", "*", "*"],
};

/** Go's time.ParseDuration, in milliseconds: `1h30m`, `90s`, `1.5h`, `-2m`. */
function goDuration(s: string): number | undefined {
  const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
  const m = /^([+-]?)(.*)$/.exec(s)!;
  if (m[2] === "0") return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0, pos = 0;
  while (pos < m[2].length) {
    re.lastIndex = pos;
    const x = re.exec(m[2]);
    if (!x) return undefined;
    total += Number(x[1]) * UNITS[x[2]];
    pos = re.lastIndex;
  }
  return pos === 0 ? undefined : m[1] === "-" ? -total : total;
}

/** Parses a schedule (throws the parser's error). */
export function parseSchedule(spec: string): Schedule {
  let s = spec, zone = LOCAL;
  if (s.length === 0) throw new Error("empty spec string");
  if (s.startsWith("TZ=") || s.startsWith("CRON_TZ=")) {
    const i = s.indexOf(" ");
    zone = namedZone(s.slice(s.indexOf("=") + 1, i < 0 ? s.length : i));
    s = i < 0 ? "" : s.slice(i).trim();
  }
  if (s.startsWith("@every ")) {
    const d = goDuration(s.slice("@every ".length));
    if (d === undefined) throw new Error(`failed to parse duration ${s}: time: invalid duration ${JSON.stringify(s.slice("@every ".length))}`);
    const delay = d < 1000 ? 1000 : d - (d % 1000);
    return { next: (ms) => ms - (ms % 1000) + delay };
  }
  let fields: string[];
  if (s.startsWith("@")) {
    fields = DESCRIPTORS[s];
    if (!fields) throw new Error(`unrecognized descriptor: ${s}`);
  } else {
    fields = s.split(/\s+/).filter(Boolean);
    if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`);
  }
  const [minute, hour, dom, month, dow] = fields.map((f, i) => parseField(f, FIELDS[i]));
  return new SpecSchedule(minute, hour, dom, month, dow, zone);
}

/** The parser's error for a schedule, or undefined when it parses. */
export function scheduleError(spec: string): string | undefined {
  try {
    parseSchedule(spec);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** How many years ahead the search gives up (robfig's limit). */
const YEAR_LIMIT = 5;

class SpecSchedule implements Schedule {
  constructor(private minute: Field, private hour: Field, private dom: Field, private month: Field, private dow: Field, private zone: Zone) {}

  /** A `*` day of month or day of week means both must match; otherwise either does. */
  private dayMatches(f: ReturnType<Zone["fields"]>): boolean {
    const domMatch = this.dom.values.has(f.day), dowMatch = this.dow.values.has(f.weekday);
    return this.dom.star || this.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  }

  // robfig's SpecSchedule.Next: move to the next matching month, day, hour and minute, resetting the smaller
  // fields once the first one moves, and start over whenever a larger field wraps.
  next(from: number): number | undefined {
    const z = this.zone, f = (t: number) => z.fields(t);
    let t = Math.floor(from / 1000) * 1000 + 1000;
    let added = false;
    const yearLimit = f(t).year + YEAR_LIMIT;
    const addDate = (t: number, months: number, days: number) => { const x = f(t); return z.make(x.year, x.month + months, x.day + days, x.hour, x.minute, x.second); };
    wrap: for (;;) {
      if (f(t).year > yearLimit) return undefined;
      while (!this.month.values.has(f(t).month)) {
        if (!added) { added = true; const x = f(t); t = z.make(x.year, x.month, 1, 0, 0, 0); }
        t = addDate(t, 1, 0);
        if (f(t).month === 1) continue wrap;
      }
      while (!this.dayMatches(f(t))) {
        if (!added) { added = true; const x = f(t); t = z.make(x.year, x.month, x.day, 0, 0, 0); }
        t = addDate(t, 0, 1);
        // a DST change can leave the day starting at 23:00 or 01:00
        const h = f(t).hour;
        if (h !== 0) t += (h > 12 ? 24 - h : -h) * 3_600_000;
        if (f(t).day === 1) continue wrap;
      }
      while (!this.hour.values.has(f(t).hour)) {
        if (!added) { added = true; const x = f(t); t = z.make(x.year, x.month, x.day, x.hour, 0, 0); }
        t += 3_600_000;
        if (f(t).hour === 0) continue wrap;
      }
      while (!this.minute.values.has(f(t).minute)) {
        if (!added) { added = true; t -= t % 60_000; }
        t += 60_000;
        if (f(t).minute === 0) continue wrap;
      }
      // the standard parser's seconds field is 0
      while (f(t).second !== 0) {
        if (!added) { added = true; t -= t % 1000; }
        t += 1000;
        if (f(t).second === 0) continue wrap;
      }
      return t;
    }
  }
}
