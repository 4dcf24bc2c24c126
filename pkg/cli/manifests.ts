// Reading objects from `-f FILE|DIR|URL|-` (and `-R`): multi-document YAML (read as YAML 1.1, as kubectl's
// go-yaml does: `0644` is octal, `yes` is true), JSON (one value, an array, or a stream of values), and
// `kind: List` expanded into its items. As kubectl reads them: empty, comment-only and `null` documents
// are skipped, and a `---` line may carry only a comment (`--- {a: 1}` ends the file with an error).
// Every document keeps its source and index, and a bad one becomes an error entry instead of stopping the rest.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseYamlFast } from "../yaml/fast.ts";

export interface Manifest {
  /** The file, URL or "STDIN" it came from. */
  source: string;
  /** 1-based document index in its source (items of a List share their list's index). */
  index: number;
  /** 0-based position within a List, when it came from one. */
  item?: number;
  obj?: Record<string, any>;
  error?: string;
}

const EXTENSIONS = [".json", ".yaml", ".yml"];

/** Where an error came from, e.g. `"app.yaml" (document 2)`. */
export const where = (m: Manifest) => `"${m.source}" (document ${m.index}${m.item !== undefined ? `, item ${m.item + 1}` : ""})`;

export async function readManifests(filenames: string[], recursive: boolean): Promise<Manifest[]> {
  const out: Manifest[] = [];
  for (const f of filenames) {
    if (f === "-") {
      out.push(...await parseManifests(await Bun.stdin.text(), "STDIN"));
    } else if (/^https?:\/\//.test(f)) {
      try {
        const res = await fetch(f);
        if (!res.ok) { out.push({ source: f, index: 0, error: `unable to read URL "${f}", server reported ${res.status} ${res.statusText}, status code=${res.status}` }); continue; }
        out.push(...await parseManifests(await res.text(), f));
      } catch (e) {
        out.push({ source: f, index: 0, error: `unable to read URL "${f}": ${(e as Error).message}` });
      }
    } else {
      let st;
      try { st = statSync(f); } catch { out.push({ source: f, index: 0, error: `the path "${f}" does not exist` }); continue; }
      const files = st.isDirectory() ? walk(f, recursive) : [f];
      for (const file of files) {
        let text: string;
        try { text = readFileSync(file, "utf8"); } catch (e) { out.push({ source: file, index: 0, error: (e as Error).message }); continue; }
        out.push(...await parseManifests(text, file));
      }
    }
  }
  return out;
}

/** Files with a manifest extension in a directory, in name order; subdirectories only with -R. */
function walk(dir: string, recursive: boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) { if (recursive) out.push(...walk(p, recursive)); }
    else if (EXTENSIONS.some((e) => name.endsWith(e))) out.push(p);
  }
  return out;
}

/** Splits one source into documents and objects. */
export async function parseManifests(text: string, source: string): Promise<Manifest[]> {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    const values = jsonValues(text);
    if (values) return values.flatMap((o, i) => expand({ source, index: i + 1 }, o));
  }
  const bad = badSeparator(text);
  if (!bad) return parseYaml(text, source);
  // kubectl stops at such a line: the documents before the one it ends are read, the rest are not.
  const before = await parseYaml(text.slice(0, bad.documentStart), source);
  const index = before.reduce((n, m) => Math.max(n, m.index), 0) + 1;
  return [...before, { source, index, error: `invalid Yaml document separator: ${bad.rest}` }];
}

/** One JSON value (an array: its elements), or a stream of values (`{...}\n{...}`); undefined if not JSON. */
function jsonValues(text: string): unknown[] | undefined {
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : [v];
  } catch { /* a stream, or YAML */ }
  const out: unknown[] = [];
  let depth = 0, inString = false, start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") { if (depth++ === 0) start = i; }
    else if (c === "}" || c === "]") {
      if (--depth < 0) return undefined;
      if (depth === 0) {
        try { out.push(JSON.parse(text.slice(start, i + 1))); } catch { return undefined; }
      }
    } else if (depth === 0 && !/\s/.test(c)) return undefined;
  }
  return depth === 0 && out.length ? out : undefined;
}

/**
 * The first `---` line that carries more than a comment, as kubectl's document reader refuses it, with the
 * offset of the document it would end (just after the last plain separator before it, or 0).
 */
function badSeparator(text: string): { rest: string; documentStart: number } | undefined {
  let documentStart = 0;
  for (const m of text.matchAll(/^---(.*)$/gm)) {
    const rest = m[1].trim();
    if (rest !== "" && !rest.startsWith("#")) return { rest, documentStart };
    documentStart = m.index;
  }
  return undefined;
}

async function parseYaml(text: string, source: string): Promise<Manifest[]> {
  const fast = parseYamlFast(text);
  if (fast) {
    const out: Manifest[] = [];
    fast.forEach((v, i) => { if (v !== null && v !== undefined) out.push(...expand({ source, index: i + 1 }, v)); });
    return out;
  }
  const YAML = (await import("yaml")).default;
  const docs = YAML.parseAllDocuments(text, {
    version: "1.1", merge: true, uniqueKeys: true, prettyErrors: false,
    customTags: (tags: any[]) => tags.filter((t) => t.tag !== "tag:yaml.org,2002:timestamp"),
  } as never) as unknown as any[];
  const out: Manifest[] = [];
  (Array.isArray(docs) ? docs : [docs]).forEach((doc, i) => {
    const m: Manifest = { source, index: i + 1 };
    if (doc.errors?.length) { out.push({ ...m, error: `error converting YAML to JSON: ${String(doc.errors[0].message).split("\n")[0]}` }); return; }
    let v: unknown;
    try { v = doc.toJS({ maxAliasCount: 100 }); } catch (e) { out.push({ ...m, error: (e as Error).message }); return; }
    if (v === null || v === undefined) return; // an empty document (comments only)
    out.push(...expand(m, v));
  });
  return out;
}

function expand(m: Manifest, v: unknown): Manifest[] {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    return [{ ...m, error: `a document must be an object, not ${Array.isArray(v) ? "a list" : JSON.stringify(v)}` }];
  }
  const o = v as Record<string, any>;
  if (typeof o.kind === "string" && o.kind.endsWith("List") && Array.isArray(o.items)) {
    return o.items.map((item: unknown, i: number) => check({ ...m, item: i }, item));
  }
  return [check(m, o)];
}

/** kubectl's checks before anything is sent: a kind, an apiVersion, a name. */
function check(m: Manifest, v: unknown): Manifest {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { ...m, error: `a list item must be an object` };
  const o = v as Record<string, any>;
  const json = JSON.stringify(o).slice(0, 200);
  if (!o.kind || typeof o.kind !== "string") return { ...m, error: `Object 'Kind' is missing in '${json}'` };
  if (!o.apiVersion || typeof o.apiVersion !== "string") return { ...m, error: `Object 'apiVersion' is missing in '${json}'` };
  if (o.metadata !== undefined && (typeof o.metadata !== "object" || o.metadata === null || Array.isArray(o.metadata))) {
    return { ...m, error: `metadata must be an object in '${json}'` };
  }
  return { ...m, obj: o };
}
