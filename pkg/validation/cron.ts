// Cron schedules as upstream's parser (robfig/cron v3, ParseStandard) reads them, with its error texts.

type Bounds = { min: number; max: number; names?: Record<string, number> };

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
/** Minute, hour, day of month, month, day of week. */
const FIELDS: Bounds[] = [{ min: 0, max: 59 }, { min: 0, max: 23 }, { min: 1, max: 31 }, { min: 1, max: 12, names: MONTHS }, { min: 0, max: 6, names: DAYS }];
const DESCRIPTORS = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"];

/** Go's strconv.Atoi, as the parser calls it: an optional sign and decimal digits. */
function toInt(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`failed to parse int from ${s}: strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${s}`);
  return n;
}

const intOrName = (s: string, b: Bounds) => b.names?.[s.toLowerCase()] ?? toInt(s);

function checkRange(expr: string, b: Bounds) {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = rangeAndStep[0].split("-");
  let start: number, end: number;
  if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") [start, end] = [b.min, b.max];
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
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < b.min) throw new Error(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new Error(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

/** Go's time.ParseDuration, enough to tell a valid duration: `1h30m`, `90s`, `1.5h`. */
const DURATION = /^[+-]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^[+-]?0$/;

/** The parser's error for a schedule, or undefined when it parses. */
export function scheduleError(spec: string): string | undefined {
  try {
    let s = spec;
    if (s.length === 0) return "empty spec string";
    const tz = /^(CRON_TZ|TZ)=(\S*)\s+/.exec(s);
    if (tz) s = s.slice(tz[0].length).trim();
    if (s.startsWith("@")) {
      if (DESCRIPTORS.includes(s)) return undefined;
      if (s.startsWith("@every ")) {
        const d = s.slice("@every ".length);
        return DURATION.test(d) ? undefined : `failed to parse duration ${s}: time: invalid duration ${JSON.stringify(d)}`;
      }
      return `unrecognized descriptor: ${s}`;
    }
    const fields = s.split(/\s+/).filter(Boolean);
    if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`;
    fields.forEach((f, i) => { for (const part of f.split(",")) checkRange(part, FIELDS[i]); });
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
