// The full YAML reader, for what the fast reader leaves (anchors, tags, folded and multi-line scalars, merge
// keys...). The `yaml` package parses; its nodes become plain values here, by go-yaml v2's rules as
// upstream's non-strict decoding applies them: scalars resolved as YAML 1.1 (timestamps and base-60
// numbers stay text), a repeated key keeps its last value, `<<` merges in document order, keys that are
// numbers or booleans become strings, an alias inside its own anchor is an error, and aliases may expand
// only up to a ratio of everything decoded ("billion laughs"). Every alias gets its own copy, so no two
// places of the result share an object. Costs up to 6 µs per byte (flow collections): callers bound the input.
// Nesting deep enough to exhaust the stack (the parser's, some 7,000 levels, or ours) counts as too deep.
import { type Alias, type Node, isAlias, isMap, isPair, isScalar, isSeq, parseAllDocuments } from "yaml";
import { isMap as isObj } from "../util/ismap.ts";
import { MAX_DEPTH, YamlLimitError, tooDeep } from "./limits.ts";

const OPTIONS = {
  version: "1.1", merge: true, uniqueKeys: false, prettyErrors: false,
  customTags: (tags: { tag: string; format?: string }[]) =>
    tags.filter((t) => t.tag !== "tag:yaml.org,2002:timestamp" && t.format !== "TIME"),
} as const;

/** Told of each repeated key of a mapping: its line (counted from 1) and the key. */
export type OnRepeat = (line: number, key: string) => void;

/** The documents of a YAML stream as plain values (null for empty ones); throws on any error. */
export function parseYamlFull(src: string, repeated?: OnRepeat): unknown[] {
  const docs = Array.from(parseAllDocuments(src, OPTIONS as never));
  return docs.map((doc) => {
    const error = doc.errors[0]?.message.split("\n")[0];
    if (error) throw error.startsWith("Maximum call stack size exceeded") ? tooDeep() : new Error(error);
    const root = doc.contents as Node | null;
    try {
      return new Converter(aliasTargets(root), repeated && ((offset, key) => repeated(lineAt(src, offset), key))).value(root, 0);
    } catch (e) {
      if (e instanceof RangeError) throw tooDeep();
      throw e;
    }
  });
}

type Obj = Record<string, unknown>;

function lineAt(src: string, offset: number): number {
  let line = 1;
  for (let i = src.indexOf("\n"); i >= 0 && i < offset; i = src.indexOf("\n", i + 1)) line++;
  return line;
}

function put(o: Obj, k: string, v: unknown) {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/** What each alias refers to: the last node before it with that anchor, as the parser met them. */
function aliasTargets(root: Node | null): Map<Alias, Node> {
  const anchors = new Map<string, Node>();
  const targets = new Map<Alias, Node>();
  const stack: unknown[] = [root];
  while (stack.length) {
    const n = stack.pop();
    if (isAlias(n)) {
      const target = anchors.get(n.source);
      if (!target) throw new Error(`unknown anchor '${n.source}' referenced`);
      targets.set(n, target);
    } else if (isPair(n)) stack.push(n.value, n.key);
    else if (isMap(n) || isSeq(n) || isScalar(n)) {
      if (n.anchor) anchors.set(n.anchor, n);
      if (!isScalar(n)) for (let i = n.items.length - 1; i >= 0; i--) stack.push(n.items[i]);
    }
  }
  return targets;
}

/**
 * Share of the nodes decoded that may come from alias expansion: nearly all in a small document, a tenth
 * past four million nodes, sliding in between (go-yaml's bound).
 */
function aliasShare(decoded: number): number {
  if (decoded <= 400_000) return 0.99;
  if (decoded >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decoded - 400_000) / 3_600_000);
}

class Converter {
  private decoded = 0;
  private aliased = 0;
  /** Aliases being expanded around the current node: meeting one again is a cycle. */
  private expanding = new Set<Alias>();
  constructor(private targets: Map<Alias, Node>, private repeated?: (offset: number, key: string) => void) {}

  /** The value of a node whose parent collection is at `depth`. */
  value(node: unknown, depth: number): unknown {
    this.decoded++;
    if (this.expanding.size) this.aliased++;
    if (this.aliased > 100 && this.decoded > 1000 && this.aliased / this.decoded > aliasShare(this.decoded)) {
      throw new YamlLimitError("document contains excessive aliasing");
    }
    if (node === null || node === undefined) return null; // an empty value
    if (isAlias(node)) return this.alias(node, depth);
    if (isScalar(node)) return scalar(node.value);
    if (depth >= MAX_DEPTH) throw tooDeep();
    if (isMap(node)) return this.map(node.items, depth + 1);
    if (isSeq(node)) return node.items.map((item) => isPair(item) ? this.map([item], depth + 1) : this.value(item, depth + 1));
    throw new Error("unsupported YAML node");
  }

  private alias(node: Alias, depth: number): unknown {
    if (this.expanding.has(node)) throw new Error(`anchor '${node.source}' value contains itself`);
    this.expanding.add(node);
    try {
      return this.value(this.targets.get(node), depth);
    } finally {
      this.expanding.delete(node);
    }
  }

  private map(items: readonly unknown[], depth: number): Obj {
    const out: Obj = {};
    // keys set by this mapping itself (a key a merge brought in may be set again)
    const own = this.repeated && new Set<string>();
    for (const pair of items) {
      if (!isPair(pair)) throw new Error("unsupported YAML node");
      if (isScalar(pair.key) && typeof pair.key.value === "symbol") this.merge(pair.value, out, depth);
      else {
        const key = this.key(pair.key, depth);
        if (own) {
          if (own.has(key)) this.repeated!((pair.key as Node).range?.[0] ?? 0, key);
          own.add(key);
        }
        put(out, key, this.value(pair.value, depth));
      }
    }
    return out;
  }

  /** `<<: map` or `<<: [maps]` sets their keys in `out` (earlier maps of a list win), as go-yaml v2 does. */
  private merge(node: unknown, out: Obj, depth: number) {
    const sources = isSeq(node) ? [...node.items].reverse() : [node];
    for (const source of sources) {
      const m = this.value(source, depth - 1);
      if (!isObj(m)) throw new Error("map merge requires map or sequence of maps as the value");
      for (const [k, v] of Object.entries(m)) put(out, k, v);
    }
  }

  private key(node: unknown, depth: number): string {
    const k = this.value(node, depth);
    if (typeof k === "string") return k;
    if (typeof k === "number" || typeof k === "boolean") return String(k);
    throw new Error(`unsupported map key: ${JSON.stringify(k)}`);
  }
}

const utf8 = new TextDecoder();

/** A resolved scalar as JSON can carry it. */
function scalar(v: unknown): unknown {
  if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`unsupported value: ${v}`);
  if (v instanceof Uint8Array) return utf8.decode(v); // !!binary: its bytes as text, as go-yaml gives them
  return v;
}
