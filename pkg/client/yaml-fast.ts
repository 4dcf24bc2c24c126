// A fast reader for the YAML that manifests are usually written in: block maps and sequences, plain and
// quoted scalars (resolved as YAML 1.1, like kubectl's go-yaml: `0644` is octal, `yes` is true), literal
// block scalars, one-line flow collections and comments. Anything else (anchors, tags, folded or multi-line
// scalars, complex keys, odd indentation...) makes it give up, and the caller uses the full parser instead.
// It exists because the full parser needs about half a second for a thousand small documents.

class Unsupported extends Error {}
const bail = (): never => { throw new Unsupported(); };

interface Line { indent: number; text: string; raw: string }

/** The documents of a YAML stream (null for empty ones), or undefined if it uses anything unsupported. */
export function parseYamlFast(src: string): unknown[] | undefined {
  try {
    return splitDocuments(src).map((lines) => new DocParser(lines).parse());
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

function splitDocuments(src: string): Line[][] {
  if (src.includes("\t") || src.includes("\r")) bail();
  const docs: Line[][] = [];
  let cur: Line[] | null = null;
  const rawLines = src.split("\n");
  if (rawLines[rawLines.length - 1] === "") rawLines.pop(); // the last line's break ends it; no empty line follows
  for (const raw of rawLines) {
    if (raw.startsWith("---") && (raw.length === 3 || raw[3] === " ")) {
      const rest = raw.slice(3).trim();
      if (rest && !rest.startsWith("#")) bail();
      if (cur) docs.push(cur);
      cur = [];
      continue;
    }
    if (raw.startsWith("...") && (raw.length === 3 || raw[3] === " ")) {
      if (cur) docs.push(cur);
      cur = null;
      continue;
    }
    if (raw.startsWith("%")) bail();
    const text = raw.trimStart();
    if (!cur) {
      if (text === "" || text.startsWith("#")) continue;
      cur = [];
    }
    cur.push({ indent: raw.length - text.length, text, raw });
  }
  if (cur) docs.push(cur);
  return docs;
}

const isBlank = (l: Line) => l.text === "" || l.text.startsWith("#");

class DocParser {
  private i = 0;
  constructor(private lines: Line[]) {}

  parse(): unknown {
    this.skipBlank();
    if (this.i >= this.lines.length) return null;
    const v = this.block(this.lines[this.i].indent);
    this.skipBlank();
    if (this.i < this.lines.length) bail();
    return v;
  }

  private skipBlank() {
    while (this.i < this.lines.length && isBlank(this.lines[this.i])) this.i++;
  }

  /** The node starting at the current line, whose indent is n. */
  private block(n: number): unknown {
    const l = this.lines[this.i];
    if (l.indent !== n) bail();
    if (l.text === "-" || l.text.startsWith("- ")) return this.sequence(n);
    if (keyEnd(l.text) >= 0) return this.mapping(n);
    // A lone scalar document (or value line).
    this.i++;
    const v = this.inlineValue(l.text, n);
    return v;
  }

  private sequence(n: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      this.skipBlank();
      const l = this.lines[this.i];
      if (!l || l.indent !== n || !(l.text === "-" || l.text.startsWith("- "))) break;
      const rest = l.text.slice(1).trimStart();
      if (rest === "" || rest.startsWith("#")) {
        this.i++;
        out.push(this.nested(n));
        continue;
      }
      // `- key: v` or `- - x`: the rest of the line is a node at a deeper column.
      const col = n + (l.text.length - rest.length);
      if (rest === "-" || rest.startsWith("- ") || keyEnd(rest) >= 0) {
        this.lines[this.i] = { indent: col, text: rest, raw: l.raw };
        out.push(this.block(col));
        continue;
      }
      this.i++;
      out.push(this.inlineValue(rest, n));
    }
    return out;
  }

  private mapping(n: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      this.skipBlank();
      const l = this.lines[this.i];
      if (!l || l.indent !== n) break;
      if (l.text === "-" || l.text.startsWith("- ")) bail();
      const end = keyEnd(l.text);
      if (end < 0) bail();
      const key = parseKey(l.text.slice(0, end));
      if (Object.hasOwn(out, key) || key === "<<") bail();
      const rest = l.text.slice(end + 1).trimStart();
      this.i++;
      if (rest === "" || rest.startsWith("#")) {
        // The value is on the next lines: deeper, or a sequence at the same indent (go-yaml's style).
        this.skipBlank();
        const next = this.lines[this.i];
        if (next && next.indent === n && (next.text === "-" || next.text.startsWith("- "))) out[key] = this.sequence(n);
        else out[key] = this.nested(n);
      } else out[key] = this.inlineValue(rest, n);
    }
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
      const p = new Flow(text);
      v = p.value();
      p.end();
    } else if (c === '"' || c === "'") {
      const r = quoted(text, 0);
      if (!rest(text.slice(r.end))) bail();
      v = r.value;
    } else {
      v = resolvePlain(plainBlock(text));
    }
    // A scalar that continues on deeper lines is multi-line: not handled here.
    const next = this.lines[this.i];
    if (next && !isBlank(next) && next.indent > n) bail();
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

/** The index of the `:` that ends a block mapping key on this line, or -1. */
function keyEnd(text: string): number {
  if (text[0] === '"' || text[0] === "'") {
    const r = quoted(text, 0);
    let j = r.end;
    while (text[j] === " ") j++;
    return text[j] === ":" && (j + 1 === text.length || text[j + 1] === " ") ? j : -1;
  }
  if ("[]{},&*!|>%@`#?-".includes(text[0]) && !(text[0] === "-" && text[1] && text[1] !== " ")) return -1;
  for (let j = 0; j < text.length; j++) {
    if (text[j] === ":" && (j + 1 === text.length || text[j + 1] === " ")) return j;
    if (text[j] === "#" && j > 0 && text[j - 1] === " ") return -1;
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
  const q = text[start];
  let out = "";
  for (let j = start + 1; j < text.length; j++) {
    const c = text[j];
    if (q === "'") {
      if (c === "'") {
        if (text[j + 1] === "'") { out += "'"; j++; continue; }
        return { value: out, end: j + 1 };
      }
      out += c;
      continue;
    }
    if (c === '"') return { value: out, end: j + 1 };
    if (c !== "\\") { out += c; continue; }
    const e = text[++j];
    const hex = (len: number) => {
      const h = text.slice(j + 1, j + 1 + len);
      if (!/^[0-9a-fA-F]+$/.test(h) || h.length !== len) bail();
      j += len;
      return String.fromCodePoint(parseInt(h, 16));
    };
    switch (e) {
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
  }
  return bail();
}

/** One-line flow collections: `{a: b, c: [1, 2]}`. */
class Flow {
  private j = 0;
  constructor(private s: string) {}

  private ws() { while (this.s[this.j] === " ") this.j++; }

  value(): unknown {
    this.ws();
    const c = this.s[this.j];
    if (c === "{") return this.map();
    if (c === "[") return this.seq();
    if (c === '"' || c === "'") {
      const r = quoted(this.s, this.j);
      this.j = r.end;
      return r.value;
    }
    if (c === undefined || "&*!|>%@`#?".includes(c)) bail();
    let k = this.j;
    while (k < this.s.length && !",[]{}".includes(this.s[k]) && !(this.s[k] === ":" && (this.s[k + 1] === " " || ",]}".includes(this.s[k + 1] ?? "")))) {
      if (this.s[k] === "#" && this.s[k - 1] === " ") bail();
      k++;
    }
    const text = this.s.slice(this.j, k).trim();
    this.j = k;
    return resolvePlain(text);
  }

  private map(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.j++;
    for (;;) {
      this.ws();
      if (this.s[this.j] === "}") { this.j++; return out; }
      const k = this.value();
      if (typeof k !== "string" || k === "" || Object.hasOwn(out, k) || k === "<<") bail();
      this.ws();
      let v: unknown = null;
      if (this.s[this.j] === ":") {
        this.j++;
        this.ws();
        if (this.s[this.j] !== "," && this.s[this.j] !== "}") v = this.value();
      }
      out[k as string] = v;
      this.ws();
      if (this.s[this.j] === ",") { this.j++; continue; }
      if (this.s[this.j] === "}") { this.j++; return out; }
      bail();
    }
  }

  private seq(): unknown[] {
    const out: unknown[] = [];
    this.j++;
    for (;;) {
      this.ws();
      if (this.s[this.j] === "]") { this.j++; return out; }
      const v = this.value();
      this.ws();
      if (this.s[this.j] === ":") bail(); // a single-pair map inside a sequence
      out.push(v);
      if (this.s[this.j] === ",") { this.j++; continue; }
      if (this.s[this.j] === "]") { this.j++; return out; }
      bail();
    }
  }

  end() {
    if (!rest(this.s.slice(this.j))) bail();
  }
}

/** A plain scalar's value under the YAML 1.1 schema the full parser is configured with (timestamps stay text). */
export function resolvePlain(s: string): unknown {
  if (/^(?:~|[Nn]ull|NULL)?$/.test(s)) return null;
  if (/^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/.test(s)) return true;
  if (/^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/.test(s)) return false;
  const c = s[0];
  if ((c >= "0" && c <= "9") || c === "-" || c === "+" || c === ".") {
    if (/^[-+]?0b[0-1_]+$/.test(s)) return int(s, 2, 2);
    if (/^[-+]?0[0-7_]+$/.test(s)) return int(s, 1, 8);
    if (/^[-+]?[0-9][0-9_]*$/.test(s)) return int(s, 0, 10);
    if (/^[-+]?0x[0-9a-fA-F_]+$/.test(s)) return int(s, 2, 16);
    if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s)) bail();
    if (/^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/.test(s)) return parseFloat(s.replace(/_/g, ""));
    if (/^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/.test(s)) return parseFloat(s.replace(/_/g, ""));
    if (/^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s)) bail(); // base 60
  }
  return s;
}

function int(s: string, offset: number, radix: number): number {
  const sign = s[0];
  if (sign === "-" || sign === "+") offset += 1;
  const n = parseInt(s.substring(offset).replace(/_/g, ""), radix);
  return sign === "-" ? -1 * n : n;
}
