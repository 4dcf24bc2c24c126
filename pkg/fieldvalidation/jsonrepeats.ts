// Repeated keys in JSON text. JSON.parse keeps the last value of a repeated key and says nothing, so the
// text is compared with what was parsed: a cheap count of the keys on both sides first, and only when the
// text holds more, a scan that names each repeat (its path and line) and keeps the key order of the
// objects that repeat one, so the unknown-field walk can report repeats where they were met.

import { isMap } from "../util/ismap.ts";

/** One repeated key: where it was met the second (or later) time. */
export interface Repeat { path: string; key: string; line: number }

/** The keys of each parsed object that repeats one, in document order, repeats included. */
export type KeyOrder = WeakMap<object, string[]>;

export interface JsonRepeats { repeats: Repeat[]; order: KeyOrder }

export const joinPath = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** Keys in the text: every `:` outside a string separates a key from its value. Strings (most of the text)
 * are skipped with indexOf. */
function keysInText(text: string): number {
  let n = 0;
  for (let i = 0; ;) {
    const open = text.indexOf('"', i);
    const end = open < 0 ? text.length : open;
    for (let j = i; j < end; j++) if (text.charCodeAt(j) === 58) n++;
    if (open < 0) return n;
    let close = open;
    do close = text.indexOf('"', close + 1); while (close > 0 && escaped(text, close));
    if (close < 0) return n;
    i = close + 1;
  }
}

/** Whether the quote at i is escaped (an odd number of backslashes before it). */
function escaped(text: string, i: number): boolean {
  let k = i - 1;
  while (text.charCodeAt(k) === 92) k--;
  return (i - 1 - k) % 2 === 1;
}

function keysIn(v: unknown): number {
  if (Array.isArray(v)) {
    let n = 0;
    for (const x of v) if (typeof x === "object" && x !== null) n += keysIn(x);
    return n;
  }
  if (!isMap(v)) return 0;
  let n = 0;
  for (const k in v) {
    n++;
    const x = v[k];
    if (typeof x === "object" && x !== null) n += keysIn(x);
  }
  return n;
}

/** The repeated keys of JSON text that parsed to `value`, or null when it repeats none. */
export function jsonRepeats(text: string, value: unknown): JsonRepeats | null {
  if (keysInText(text) === keysIn(value)) return null;
  const scan = new Scan(text);
  scan.value(value, "");
  return scan.repeats.length ? { repeats: scan.repeats, order: scan.order } : null;
}

/** Walks text already known to be valid JSON, beside the value it parsed to. */
class Scan {
  private i = 0;
  private line = 1;
  readonly repeats: Repeat[] = [];
  readonly order: KeyOrder = new WeakMap();
  constructor(private s: string) {}

  private ws() {
    for (;;) {
      const c = this.s.charCodeAt(this.i);
      if (c === 10) this.line++;
      else if (c !== 32 && c !== 9 && c !== 13) return;
      this.i++;
    }
  }

  value(parsed: unknown, path: string): void {
    this.ws();
    const c = this.s.charCodeAt(this.i);
    if (c === 123) return this.object(parsed, path);
    if (c === 91) return this.array(parsed, path);
    if (c === 34) { this.string(); return; }
    while (this.i < this.s.length && !",]} \t\r\n".includes(this.s[this.i])) this.i++;
  }

  private string(): string {
    const start = this.i++;
    let escaped = false;
    for (; this.i < this.s.length; this.i++) {
      const c = this.s.charCodeAt(this.i);
      if (c === 92) { escaped = true; this.i++; } else if (c === 34) break;
    }
    this.i++;
    return escaped ? JSON.parse(this.s.slice(start, this.i)) : this.s.slice(start + 1, this.i - 1);
  }

  // A repeated key's earlier values are scanned beside its last one (the only one parsed): repeats inside
  // them are still found, as a decoder reading every occurrence finds them.
  private object(parsed: unknown, path: string) {
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 125) { this.i++; return; }
    const keys: string[] = [];
    const seen = new Set<string>();
    let repeated = false;
    for (;;) {
      this.ws();
      const line = this.line;
      const key = this.string();
      this.ws();
      this.i++; // ':'
      const at = joinPath(path, key);
      if (seen.has(key)) { repeated = true; this.repeats.push({ path: at, key, line }); } else seen.add(key);
      keys.push(key);
      this.value(isMap(parsed) && Object.hasOwn(parsed, key) ? parsed[key] : undefined, at);
      this.ws();
      if (this.s.charCodeAt(this.i++) !== 44) break; // ',' or '}'
    }
    if (repeated && isMap(parsed)) this.order.set(parsed, keys);
  }

  private array(parsed: unknown, path: string) {
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 93) { this.i++; return; }
    for (let j = 0; ; j++) {
      this.value(Array.isArray(parsed) ? parsed[j] : undefined, `${path}[${j}]`);
      this.ws();
      if (this.s.charCodeAt(this.i++) !== 44) break; // ',' or ']'
    }
  }
}
