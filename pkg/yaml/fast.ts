// A fast reader for the YAML that manifests are usually written in: block maps and sequences, plain and
// quoted scalars (resolved as YAML 1.1, like kubectl's go-yaml: `0644` is octal, `yes` is true), literal
// block scalars, one-line flow collections and comments. Anything else (anchors, tags, folded or multi-line
// scalars, complex keys, odd indentation...) makes it give up, and the caller uses the full parser instead.
// It exists because the full parser needs about half a second for a thousand small documents, and seconds
// for a megabyte of one document, which this reads in some 50 ms. Nesting past MAX_DEPTH throws
// YamlLimitError (a 400 on the server).
import { MAX_DEPTH, tooDeep } from "./limits.ts";

class Unsupported extends Error {}
const bail = (): never => { throw new Unsupported(); };

/**
 * A line: its indentation, its text after it, whether that is empty or a comment, and (once asked) where
 * a mapping key on it ends.
 */
interface Line { indent: number; text: string; raw: string; blank: boolean; end?: number; no: number }

const keyEndOf = (l: Line) => (l.end ??= keyEnd(l.text));

export interface FastOptions {
  /** A repeated key keeps its last value, as upstream's non-strict decoding does; else the reader gives up. */
  lastKeyWins?: boolean;
  /** Told of each repeated key (with lastKeyWins): its line, counted from 1 in the whole stream. */
  repeated?: (line: number, key: string) => void;
}

/** The documents of a YAML stream (null for empty ones), or undefined if it uses anything unsupported. */
export function parseYamlFast(src: string, opts: FastOptions = {}): unknown[] | undefined {
  try {
    return splitDocuments(src).map((lines) => new DocParser(lines, opts).parse());
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

function splitDocuments(src: string): Line[][] {
  if (src.includes("\r")) src = src.replaceAll("\r\n", "\n"); // YAML reads CRLF as one line break
  if (src.includes("\t") || src.includes("\r")) bail();
  const docs: Line[][] = [];
  let cur: Line[] | null = null;
  const rawLines = src.split("\n");
  if (rawLines[rawLines.length - 1] === "") rawLines.pop(); // the last line's break ends it; no empty line follows
  for (let no = 1; no <= rawLines.length; no++) {
    const raw = rawLines[no - 1];
    const c0 = raw.charCodeAt(0);
    if (c0 === 45 && raw.startsWith("---") && (raw.length === 3 || raw[3] === " ")) {
      const rest = raw.slice(3).trim();
      if (rest && !rest.startsWith("#")) bail();
      if (cur) docs.push(cur);
      cur = [];
      continue;
    }
    if (c0 === 46 && raw.startsWith("...") && (raw.length === 3 || raw[3] === " ")) {
      if (cur) docs.push(cur);
      cur = null;
      continue;
    }
    if (c0 === 37) bail(); // a directive
    let indent = 0;
    while (raw.charCodeAt(indent) === 32) indent++;
    const text = indent ? raw.slice(indent) : raw;
    const blank = text === "" || text.charCodeAt(0) === 35;
    if (!cur) {
      if (blank) continue;
      cur = [];
    }
    cur.push({ indent, text, raw, blank, end: undefined, no });
  }
  if (cur) docs.push(cur);
  return docs;
}

const isItem = (text: string) => text === "-" || text.startsWith("- ");

type Obj = Record<string, unknown>;

/** Sets a key of a mapping: an own property, `__proto__` too (assigning that one would set the prototype). */
function put(o: Obj, k: string, v: unknown, opts: FastOptions, line: number) {
  // Merge keys and (unless the last wins) repeated keys are the full parser's business.
  if (k === "<<") bail();
  if (Object.hasOwn(o, k)) {
    if (!opts.lastKeyWins) bail();
    opts.repeated?.(line, k);
  }
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

class DocParser {
  private i = 0;
  /** Collections open around the current line. */
  private depth = 0;
  constructor(private lines: Line[], private opts: FastOptions) {}

  parse(): unknown {
    this.skipBlank();
    if (this.i >= this.lines.length) return null;
    const v = this.block(this.lines[this.i].indent);
    this.skipBlank();
    if (this.i < this.lines.length) bail();
    return v;
  }

  private enter() {
    if (++this.depth > MAX_DEPTH) throw tooDeep();
  }

  private skipBlank() {
    while (this.i < this.lines.length && this.lines[this.i].blank) this.i++;
  }

  /** The node starting at the current line, whose indent is n. */
  private block(n: number): unknown {
    const l = this.lines[this.i];
    if (l.indent !== n) bail();
    if (isItem(l.text)) return this.sequence(n);
    if (keyEndOf(l) >= 0) return this.mapping(n);
    // A lone scalar document (or value line).
    this.i++;
    return this.inlineValue(l.text, n);
  }

  private sequence(n: number): unknown[] {
    this.enter();
    const out: unknown[] = [];
    for (;;) {
      this.skipBlank();
      const l = this.lines[this.i];
      if (!l || l.indent !== n || !isItem(l.text)) break;
      const rest = l.text.slice(1).trimStart();
      if (rest === "" || rest.startsWith("#")) {
        this.i++;
        out.push(this.nested(n));
        continue;
      }
      // `- key: v` or `- - x`: the rest of the line is a node at a deeper column.
      const col = n + (l.text.length - rest.length);
      const item: Line = { indent: col, text: rest, raw: l.raw, blank: false, end: undefined, no: l.no };
      if (isItem(rest) || keyEndOf(item) >= 0) {
        this.lines[this.i] = item;
        out.push(this.block(col));
        continue;
      }
      this.i++;
      out.push(this.inlineValue(rest, n));
    }
    this.depth--;
    return out;
  }

  private mapping(n: number): Obj {
    this.enter();
    const out: Obj = {};
    for (;;) {
      this.skipBlank();
      const l = this.lines[this.i];
      if (!l || l.indent !== n) break;
      if (isItem(l.text)) bail();
      const end = keyEndOf(l);
      if (end < 0) bail();
      const key = parseKey(l.text.slice(0, end));
      const rest = l.text.slice(end + 1).trimStart();
      this.i++;
      let v: unknown;
      if (rest === "" || rest.startsWith("#")) {
        // The value is on the next lines: deeper, or a sequence at the same indent (go-yaml's style).
        this.skipBlank();
        const next = this.lines[this.i];
        v = next && next.indent === n && isItem(next.text) ? this.sequence(n) : this.nested(n);
      } else v = this.inlineValue(rest, n);
      put(out, key, v, this.opts, l.no);
    }
    this.depth--;
    return out;
  }

  /** A value on the lines after a `key:` or `-` at indent n: deeper lines, or null. */
  private nested(n: number): unknown {
    this.skipBlank();
    const next = this.lines[this.i];
    if (!next || next.indent <= n) return null;
    return this.block(next.indent);
  }

  /** A value that starts on the current line (already consumed), after `key: ` or `- `. */
  private inlineValue(text: string, n: number): unknown {
    const c = text[0];
    let v: unknown;
    if (c === "|") return this.literal(text, n);
    if (">&*!?%@`}],".includes(c)) bail();
    if (c === "{" || c === "[") {
      v = new Flow(text, this.depth, this.opts, this.lines[this.i - 1].no).document();
    } else if (c === '"' || c === "'") {
      const r = quoted(text, 0);
      if (!rest(text.slice(r.end))) bail();
      v = r.value;
    } else {
      v = resolvePlain(plainBlock(text));
    }
    // A scalar that continues on deeper lines is multi-line: not handled here.
    const next = this.lines[this.i];
    if (next && !next.blank && next.indent > n) bail();
    return v;
  }

  /** A literal block scalar (`|`, `|-`, `|+`) whose header is `text`, below a node at indent n. */
  private literal(text: string, n: number): string {
    const m = /^\|([-+]?)\s*(#.*)?$/.exec(text);
    if (!m) bail();
    const chomp = m![1];
    const body: string[] = [];
    let indent = -1;
    while (this.i < this.lines.length) {
      const l = this.lines[this.i];
      if (l.raw.trim() === "") {
        if (indent >= 0 && l.raw.length > indent) body.push(l.raw.slice(indent));
        else if (indent < 0 && l.raw.length > n + 1) bail(); // leading blank lines longer than the content indent
        else body.push("");
        this.i++;
        continue;
      }
      if (indent < 0) {
        if (l.indent <= n) break;
        indent = l.indent;
      }
      if (l.indent < indent) break;
      body.push(l.raw.slice(indent));
      this.i++;
    }
    // Trailing blank lines belong to the scalar only with "keep"; give them back otherwise.
    let last = body.length;
    while (last > 0 && body[last - 1] === "") last--;
    const content = body.slice(0, last).join("\n");
    const trailing = body.length - last;
    if (content === "") return chomp === "+" ? "\n".repeat(trailing) : "";
    if (chomp === "-") return content;
    if (chomp === "+") return `${content}\n${"\n".repeat(trailing)}`;
    return `${content}\n`;
  }
}

/** Characters that cannot start a plain key (a `-` can, when no space follows it). */
const NO_PLAIN_KEY = new Set("[]{},&*!|>%@`#?-");

/** The index of the `:` that ends a block mapping key on this line, or -1. */
function keyEnd(text: string): number {
  if (text[0] === '"' || text[0] === "'") {
    const r = quoted(text, 0);
    let j = r.end;
    while (text[j] === " ") j++;
    return text[j] === ":" && (j + 1 === text.length || text[j + 1] === " ") ? j : -1;
  }
  if (NO_PLAIN_KEY.has(text[0]) && !(text[0] === "-" && text[1] && text[1] !== " ")) return -1;
  // The first `: ` (or a final `:`) before any comment.
  const hash = text.indexOf(" #");
  for (let j = text.indexOf(":"); j >= 0 && (hash < 0 || j < hash); j = text.indexOf(":", j + 1)) {
    if (j + 1 === text.length || text.charCodeAt(j + 1) === 32) return j;
  }
  return -1;
}

function parseKey(k: string): string {
  const t = k.trim();
  if (t[0] === '"' || t[0] === "'") {
    const r = quoted(t, 0);
    if (r.end !== t.length) bail();
    return r.value;
  }
  if (t === "" || typeof resolvePlain(t) !== "string") bail(); // keys that are not strings: leave to the full parser
  return t;
}

/** Only whitespace or a comment may follow a value. */
const rest = (s: string) => s.trim() === "" || /^\s+#/.test(s);

/** A plain scalar in block context: up to a comment; no `: ` inside (that would be a nested map). */
function plainBlock(text: string): string {
  let end = text.length;
  const hash = text.indexOf(" #");
  if (hash >= 0) end = hash;
  const s = text.slice(0, end).trim();
  if (s.includes(": ") || s.endsWith(":") || s.startsWith("- ") || s.startsWith(": ") || s === "-") bail();
  return s;
}

function quoted(text: string, start: number): { value: string; end: number } {
  let out = "";
  let from = start + 1;
  if (text[start] === "'") {
    for (let j = text.indexOf("'", from); j >= 0; j = text.indexOf("'", from)) {
      out += text.slice(from, j);
      if (text[j + 1] !== "'") return { value: out, end: j + 1 };
      out += "'";
      from = j + 2;
    }
    return bail();
  }
  // Copies the runs between escapes; every search moves forward only (and never past the next quote),
  // so a line of many strings is read in linear time.
  for (let quote = text.indexOf('"', from); ; ) {
    if (quote < 0) bail();
    let slash = from;
    while (slash < quote && text.charCodeAt(slash) !== 92) slash++;
    if (slash === quote) return { value: out + text.slice(from, quote), end: quote + 1 };
    out += text.slice(from, slash);
    let j = slash + 1;
    const hex = (len: number) => {
      const h = text.slice(j + 1, j + 1 + len);
      if (!/^[0-9a-fA-F]+$/.test(h) || h.length !== len) bail();
      j += len;
      return String.fromCodePoint(parseInt(h, 16));
    };
    switch (text[j]) {
      case "0": out += "\0"; break;
      case "a": out += "\x07"; break;
      case "b": out += "\b"; break;
      case "t": out += "\t"; break;
      case "n": out += "\n"; break;
      case "v": out += "\v"; break;
      case "f": out += "\f"; break;
      case "r": out += "\r"; break;
      case "e": out += "\x1b"; break;
      case " ": out += " "; break;
      case '"': out += '"'; break;
      case "/": out += "/"; break;
      case "\\": out += "\\"; break;
      case "N": out += "\x85"; break;
      case "_": out += "\xa0"; break;
      case "L": out += "\u2028"; break;
      case "P": out += "\u2029"; break;
      case "x": out += hex(2); break;
      case "u": out += hex(4); break;
      case "U": out += hex(8); break;
      default: bail();
    }
    from = j + 1;
    if (quote < from) quote = text.indexOf('"', from);
  }
}

/** One-line flow collections: `{a: b, c: [1, 2]}`. */
class Flow {
  private j = 0;
  constructor(private s: string, private depth: number, private opts: FastOptions, private line: number) {}

  /** The collection that is the whole value of the line; only a comment may follow it. */
  document(): unknown {
    const v = this.value();
    if (!rest(this.s.slice(this.j))) bail();
    return v;
  }

  private enter() {
    if (++this.depth > MAX_DEPTH) throw tooDeep();
  }

  private ws() { while (this.s[this.j] === " ") this.j++; }

  private value(): unknown {
    this.ws();
    const c = this.s[this.j];
    if (c === "{") return this.map();
    if (c === "[") return this.seq();
    return this.scalar();
  }

  /** A quoted or plain scalar's value. */
  private scalar(): unknown {
    const c = this.s[this.j];
    if (c === '"' || c === "'") {
      const r = quoted(this.s, this.j);
      this.j = r.end;
      return r.value;
    }
    if (c === undefined || "&*!|>%@`#?{[".includes(c)) bail();
    // `-` or `:` alone is an indicator, not a scalar
    if ((c === "-" || c === ":") && " ,[]{}".includes(this.s[this.j + 1] ?? " ")) bail();
    let k = this.j;
    while (k < this.s.length && !",[]{}".includes(this.s[k]) && !(this.s[k] === ":" && (this.s[k + 1] === " " || ",]}".includes(this.s[k + 1] ?? "")))) {
      if (this.s[k] === "#" && this.s[k - 1] === " ") bail();
      k++;
    }
    const text = this.s.slice(this.j, k).trim();
    this.j = k;
    return resolvePlain(text);
  }

  private map(): Obj {
    this.enter();
    const out: Obj = {};
    this.j++;
    for (;;) {
      this.ws();
      if (this.s[this.j] === "}") break;
      const k = this.scalar();
      if (typeof k !== "string" || k === "") bail();
      this.ws();
      let v: unknown = null;
      if (this.s[this.j] === ":") {
        this.j++;
        this.ws();
        if (this.s[this.j] !== "," && this.s[this.j] !== "}") v = this.value();
      }
      put(out, k as string, v, this.opts, this.line);
      this.ws();
      if (this.s[this.j] === ",") { this.j++; continue; }
      if (this.s[this.j] !== "}") bail();
      break;
    }
    this.j++;
    this.depth--;
    return out;
  }

  private seq(): unknown[] {
    this.enter();
    const out: unknown[] = [];
    this.j++;
    for (;;) {
      this.ws();
      if (this.s[this.j] === "]") break;
      out.push(this.value());
      this.ws();
      if (this.s[this.j] === ":") bail(); // a single-pair map inside a sequence
      if (this.s[this.j] === ",") { this.j++; continue; }
      if (this.s[this.j] !== "]") bail();
      break;
    }
    this.j++;
    this.depth--;
    return out;
  }
}

/** YAML 1.1's null and boolean words. */
const WORDS = new Map<string, null | boolean>([
  ...["", "~", "null", "Null", "NULL"].map((w) => [w, null] as const),
  ...["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"].map((w) => [w, true] as const),
  ...["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"].map((w) => [w, false] as const),
]);

/** A plain scalar's value under the YAML 1.1 schema the full parser is configured with (timestamps stay text). */
export function resolvePlain(s: string): unknown {
  const word = WORDS.get(s);
  if (word !== undefined) return word;
  const c = s[0];
  if ((c >= "0" && c <= "9") || c === "-" || c === "+" || c === ".") {
    if (/^[-+]?0b[0-1_]+$/.test(s)) return int(s, 2, 2);
    if (/^[-+]?0[0-7_]+$/.test(s)) return int(s, 1, 8);
    if (/^[-+]?[0-9][0-9_]*$/.test(s)) return int(s, 0, 10);
    if (/^[-+]?0x[0-9a-fA-F_]+$/.test(s)) return int(s, 2, 16);
    if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s)) bail();
    if (/^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/.test(s)) return finite(parseFloat(s.replace(/_/g, "")));
    if (/^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/.test(s)) return finite(parseFloat(s.replace(/_/g, "")));
    if (/^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s)) bail(); // base 60
  }
  return s;
}

/** Numbers JSON cannot carry (`.`, `0b_`, `1e999`) are left to the full parser. */
const finite = (n: number) => (Number.isFinite(n) ? n : bail());

function int(s: string, offset: number, radix: number): number {
  const sign = s[0];
  if (sign === "-" || sign === "+") offset += 1;
  const n = parseInt(s.substring(offset).replace(/_/g, ""), radix);
  return finite(sign === "-" ? -1 * n : n);
}
