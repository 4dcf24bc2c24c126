// kite datastore import: into an empty store only. The input is read twice: first every line is checked
// (JSON, key under the prefix, no key twice), so a bad file writes nothing; then the keys are created,
// a bounded number at a time.
import { StoreError } from "../storage/store.ts";
import { type Entry, FormatError, decodeLine, readLines } from "./format.ts";
import type { Target } from "./target.ts";

export interface ImportOptions {
  /** A progress line every this many objects (0: only the summary). */
  progressEvery: number;
  /** Creates in flight at once. */
  concurrency: number;
  log: (line: string) => void;
}

export interface ImportSummary {
  objects: number;
  resources: Record<string, number>;
  /** The revision of each store after the import. */
  revisions: number[];
  ms: number;
}

export class NotEmptyError extends Error {}

/** Fails unless every store of the target holds no key under its prefix. */
export async function ensureEmpty(t: Target): Promise<void> {
  const counts = await t.counts();
  const busy = t.routes.map((r, i) => ({ r, n: counts[i] })).filter((x) => x.n > 0);
  if (busy.length) {
    const what = busy.map((x) => `${x.r.where} holds ${x.n} object${x.n === 1 ? "" : "s"} under ${x.r.prefix}`).join("; ");
    throw new NotEmptyError(`refusing to import into a store that is not empty: ${what}. Import needs an empty store (a new --data-dir, or an etcd without keys under ${t.prefix})`);
  }
}

/** First pass: every line parses, lies under the prefix, and names a key once. Returns the count. */
export async function validateFile(t: Target, path: string, label: string): Promise<number> {
  const seen = new Set<string>();
  for await (const { n, line } of readLines(path)) {
    if (!line.trim()) continue;
    const e = decodeLine(line, `line ${n} of ${label}`);
    if (!t.routeOf(e.key)) throw new FormatError(`line ${n} of ${label}: key ${JSON.stringify(e.key)} is not under the prefix ${t.prefix} (see --etcd-prefix)`);
    if (seen.has(e.key)) throw new FormatError(`line ${n} of ${label}: key ${e.key} appears twice`);
    seen.add(e.key);
  }
  return seen.size;
}

export async function importFile(t: Target, path: string, label: string, o: ImportOptions): Promise<ImportSummary> {
  const t0 = performance.now();
  await ensureEmpty(t);
  const total = await validateFile(t, path, label);
  const sum: ImportSummary = { objects: 0, resources: {}, revisions: [], ms: 0 };
  const inflight = new Set<Promise<void>>();
  let failure: Error | undefined;
  const put = async (e: Entry, n: number) => {
    try {
      await t.routeOf(e.key)!.store.create(e.key, e.value);
    } catch (err) {
      const why = err instanceof StoreError && err.code === "KeyExists" ? `${e.key} already exists (written by someone else during the import?)` : (err as Error).message;
      failure ??= new Error(`line ${n} of ${label}: creating ${e.key} failed: ${why}`);
      return;
    }
    sum.objects++;
    const res = e.key.slice(t.prefix.length).split("/")[0];
    sum.resources[res] = (sum.resources[res] ?? 0) + 1;
    if (o.progressEvery > 0 && sum.objects % o.progressEvery === 0) o.log(`imported ${sum.objects}/${total} objects`);
  };
  for await (const { n, line } of readLines(path)) {
    if (failure) break;
    if (!line.trim()) continue;
    const p = put(decodeLine(line, `line ${n} of ${label}`), n).finally(() => inflight.delete(p));
    inflight.add(p);
    if (inflight.size >= o.concurrency) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  if (failure) {
    throw new Error(`${failure.message}. ${sum.objects} of ${total} objects were written before the failure; empty the target before importing again`);
  }
  sum.revisions = await Promise.all(t.routes.map((r) => r.store.currentRevision()));
  sum.ms = performance.now() - t0;
  return sum;
}
