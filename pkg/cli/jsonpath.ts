// kubectl's JSONPath templates (k8s.io/client-go/util/jsonpath): text and `{...}` actions with fields
// (`.a.b`, `['a.b']`, `a\.b`), `[*]`, `.*`, `..name`, indexes and slices, unions, filters
// (`[?(@.x=="y")]`), `{range ...}{end}` and string literals (`{"\n"}`). Missing keys print nothing.

import { goJSON } from "./printers.ts";
import { isMap } from "../util/ismap.ts";

type Seg =
  | { k: "field"; names: string[] }
  | { k: "wild" }
  | { k: "recursive"; name: string | null }
  | { k: "index"; idx: number[] }
  | { k: "slice"; start?: number; end?: number; step?: number }
  | { k: "filter"; left: Path; op?: string; right?: Path | { lit: unknown } };

interface Path { root: "$" | "@"; segs: Seg[] }

type Node =
  | { t: "text"; s: string }
  | { t: "path"; path: Path }
  | { t: "range"; path: Path; body: Node[] };

export class JsonPathError extends Error {}

/** A parsed template, reusable across objects. */
export class JsonPath {
  private nodes: Node[];

  constructor(readonly template: string) {
    const tokens = splitTemplate(template);
    let i = 0;
    const parseSeq = (inRange: boolean): Node[] => {
      const out: Node[] = [];
      while (i < tokens.length) {
        const tok = tokens[i++];
        if (tok.text !== undefined) { out.push({ t: "text", s: tok.text }); continue; }
        const a = tok.action!.trim();
        if (a === "end") {
          if (!inRange) throw new JsonPathError(`not in range, nothing to end`);
          return out;
        }
        if (a.startsWith("range ") || a === "range") {
          const path = parsePath(a.slice(5).trim());
          out.push({ t: "range", path, body: parseSeq(true) });
          continue;
        }
        if (/^["']/.test(a)) { out.push({ t: "text", s: unquote(a) }); continue; }
        if (a === "") continue;
        out.push({ t: "path", path: parsePath(a) });
      }
      if (inRange) throw new JsonPathError(`unclosed range`);
      return out;
    };
    this.nodes = parseSeq(false);
  }

  /** The template's text for data. */
  execute(data: unknown): string {
    let s = "";
    const run = (nodes: Node[], cur: unknown) => {
      for (const n of nodes) {
        if (n.t === "text") s += n.s;
        else if (n.t === "path") s += evaluate(n.path, data, cur).map(toText).join(" ");
        else for (const v of evaluate(n.path, data, cur)) run(n.body, v);
      }
    };
    run(this.nodes, data);
    return s;
  }

  /** The values the template's actions select (for sorting and custom columns). */
  values(data: unknown): unknown[] {
    const out: unknown[] = [];
    for (const n of this.nodes) if (n.t === "path") out.push(...evaluate(n.path, data, data));
    return out;
  }
}

/** `.metadata.name`, `metadata.name` or `{.metadata.name}` → a template (kubectl's RelaxedJSONPathExpression). */
export function relaxed(expr: string): string {
  const e = expr.trim();
  if (e.startsWith("{") && e.endsWith("}")) return e;
  if (e === "") throw new JsonPathError("jsonpath expression cannot be empty");
  return `{${e.startsWith(".") || e.startsWith("$") || e.startsWith("[") ? e : `.${e}`}}`;
}

/** A value as kubectl's JSONPath prints it: strings raw, maps and lists as (Go-escaped) JSON. */
function toText(v: unknown): string {
  if (v === null || v === undefined) return v === null ? "null" : "";
  if (typeof v === "object") return goJSON(v);
  return String(v);
}

function splitTemplate(t: string): { text?: string; action?: string }[] {
  const out: { text?: string; action?: string }[] = [];
  let i = 0, text = "";
  while (i < t.length) {
    if (t[i] !== "{") { text += t[i++]; continue; }
    if (text) { out.push({ text }); text = ""; }
    let j = i + 1, quote = "";
    for (; j < t.length; j++) {
      const c = t[j];
      if (quote) {
        if (c === "\\") j++;
        else if (c === quote) quote = "";
      } else if (c === '"' || c === "'") quote = c;
      else if (c === "}") break;
    }
    if (j >= t.length) throw new JsonPathError(`unclosed action`);
    out.push({ action: t.slice(i + 1, j) });
    i = j + 1;
  }
  if (text) out.push({ text });
  return out;
}

function unquote(s: string): string {
  const q = s[0];
  if (s[s.length - 1] !== q) throw new JsonPathError(`unterminated string ${s}`);
  const body = s.slice(1, -1);
  return body.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_, c: string) => {
    switch (c[0]) {
      case "n": return "\n";
      case "t": return "\t";
      case "r": return "\r";
      case "f": return "\f";
      case "v": return "\v";
      case "b": return "\b";
      case "a": return "\x07";
      case "u": case "x": return String.fromCharCode(parseInt(c.slice(1), 16));
      default: return c;
    }
  });
}

function parsePath(src: string): Path {
  let i = 0;
  const segs: Seg[] = [];
  let root: "$" | "@" = "@";
  if (src[0] === "$") { root = "$"; i = 1; } else if (src[0] === "@") { i = 1; }
  const ident = () => {
    let name = "";
    while (i < src.length) {
      const c = src[i];
      if (c === "\\" && i + 1 < src.length) { name += src[i + 1]; i += 2; continue; }
      if (/[A-Za-z0-9_\-/:]/.test(c)) { name += c; i++; continue; }
      break;
    }
    return name;
  };
  if (i < src.length && /[A-Za-z_]/.test(src[i])) segs.push({ k: "field", names: [ident()] });
  while (i < src.length) {
    const c = src[i];
    if (c === " " ) { i++; continue; }
    if (src.startsWith("..", i)) {
      i += 2;
      if (src[i] === "*") { i++; segs.push({ k: "recursive", name: null }); }
      else segs.push({ k: "recursive", name: ident() || null });
      continue;
    }
    if (c === ".") {
      i++;
      if (src[i] === "*") { i++; segs.push({ k: "wild" }); continue; }
      const name = ident();
      if (!name) { if (i >= src.length) break; throw new JsonPathError(`unrecognized character in action: ${JSON.stringify(src[i])}`); }
      segs.push({ k: "field", names: [name] });
      continue;
    }
    if (c === "[") {
      const close = findClose(src, i);
      const inner = src.slice(i + 1, close).trim();
      i = close + 1;
      segs.push(parseBracket(inner));
      continue;
    }
    throw new JsonPathError(`unrecognized character in action: ${JSON.stringify(c)}`);
  }
  return { root, segs };
}

function findClose(src: string, open: number): number {
  let depth = 0, quote = "";
  for (let j = open; j < src.length; j++) {
    const c = src[j];
    if (quote) { if (c === "\\") j++; else if (c === quote) quote = ""; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === "[" || c === "(") depth++;
    else if (c === "]" || c === ")") { depth--; if (depth === 0 && c === "]") return j; }
  }
  throw new JsonPathError(`unterminated array`);
}

function parseBracket(inner: string): Seg {
  if (inner === "*") return { k: "wild" };
  if (inner.startsWith("?")) {
    const m = /^\?\s*\(([\s\S]*)\)$/.exec(inner);
    if (!m) throw new JsonPathError(`invalid filter ${inner}`);
    const expr = m[1].trim();
    const op = /(==|!=|<=|>=|<|>|=~)/.exec(expr);
    if (!op) return { k: "filter", left: parsePath(expr) };
    const left = parsePath(expr.slice(0, op.index).trim());
    const r = expr.slice(op.index + op[0].length).trim();
    const right = /^["']/.test(r) ? { lit: unquote(r) } : /^-?\d+(\.\d+)?$/.test(r) ? { lit: Number(r) } : r === "true" || r === "false" ? { lit: r === "true" } : parsePath(r);
    return { k: "filter", left, op: op[0], right };
  }
  if (/^["']/.test(inner)) return { k: "field", names: inner.split(/\s*,\s*(?=["'])/).map(unquote) };
  if (inner.includes(":")) {
    const [a, b, c] = inner.split(":").map((x) => x.trim());
    const num = (x: string | undefined) => (x === undefined || x === "" ? undefined : Number(x));
    return { k: "slice", start: num(a), end: num(b), step: num(c) };
  }
  const idx = inner.split(",").map((x) => Number(x.trim()));
  if (idx.some((n) => !Number.isInteger(n))) throw new JsonPathError(`invalid array index ${inner}`);
  return { k: "index", idx };
}


function evaluate(path: Path, root: unknown, cur: unknown): unknown[] {
  let vals: unknown[] = [path.root === "$" ? root : cur];
  for (const seg of path.segs) {
    const next: unknown[] = [];
    for (const v of vals) step(seg, v, root, next);
    vals = next;
  }
  return vals;
}

function step(seg: Seg, v: unknown, root: unknown, out: unknown[]): void {
  switch (seg.k) {
    case "field":
      if (isMap(v)) for (const n of seg.names) if (Object.hasOwn(v, n)) out.push(v[n]);
      return;
    case "wild":
      if (Array.isArray(v)) out.push(...v);
      else if (isMap(v)) for (const k of Object.keys(v).sort()) out.push(v[k]);
      return;
    case "recursive": {
      const walk = (x: unknown) => {
        if (seg.name === null) { if (x !== v) out.push(x); }
        else if (isMap(x) && Object.hasOwn(x, seg.name)) out.push(x[seg.name]);
        if (Array.isArray(x)) x.forEach(walk);
        else if (isMap(x)) for (const k of Object.keys(x).sort()) walk(x[k]);
      };
      walk(v);
      return;
    }
    case "index":
      if (!Array.isArray(v)) return;
      for (let i of seg.idx) {
        if (i < 0) i += v.length;
        if (i >= 0 && i < v.length) out.push(v[i]);
      }
      return;
    case "slice": {
      if (!Array.isArray(v)) return;
      const n = v.length, st = seg.step ?? 1;
      let a = seg.start ?? 0, b = seg.end ?? n;
      if (a < 0) a += n;
      if (b < 0) b += n;
      a = Math.max(0, Math.min(a, n));
      b = Math.max(0, Math.min(b, n));
      for (let i = a; i < b; i += st > 0 ? st : 1) out.push(v[i]);
      return;
    }
    case "filter": {
      const items = Array.isArray(v) ? v : isMap(v) ? Object.keys(v).sort().map((k) => v[k]) : [];
      for (const item of items) {
        const left = evaluate(seg.left, root, item);
        if (!seg.op) { if (left.length && left[0] !== false && left[0] !== null) out.push(item); continue; }
        const right = seg.right && "lit" in seg.right ? [seg.right.lit] : evaluate(seg.right as Path, root, item);
        if (left.length && right.length && compare(left[0], seg.op, right[0])) out.push(item);
      }
      return;
    }
  }
}

function compare(a: unknown, op: string, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "string" && b !== "" && !isNaN(Number(b))) b = Number(b);
  if (typeof b === "number" && typeof a === "string" && a !== "" && !isNaN(Number(a))) a = Number(a);
  switch (op) {
    case "==": return a === b || (typeof a === "object" && JSON.stringify(a) === JSON.stringify(b));
    case "!=": return !(a === b || (typeof a === "object" && JSON.stringify(a) === JSON.stringify(b)));
    case "=~": return typeof a === "string" && new RegExp(String(b)).test(a);
    case "<": return (a as number) < (b as number);
    case ">": return (a as number) > (b as number);
    case "<=": return (a as number) <= (b as number);
    case ">=": return (a as number) >= (b as number);
  }
  return false;
}
