// Reading objects from `-f FILE|DIR|URL|-` (and `-R`): multi-document YAML (read as YAML 1.1, as kubectl's
// go-yaml does: `0644` is octal, `yes` is true), JSON, and `kind: List` expanded into its items. Every
// document keeps its source and index, and a bad one becomes an error entry instead of stopping the rest.
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
    try {
      const v = JSON.parse(text);
      return (Array.isArray(v) ? v : [v]).flatMap((o, i) => expand({ source, index: i + 1 }, o));
    } catch { /* not one JSON value: read it as YAML (a JSON stream is YAML too) */ }
  }
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
