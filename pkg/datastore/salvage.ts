// kite datastore export from a damaged SQLite store (one that fails quick_check, which a server refuses):
// every row SQLite can still read, walked in revision order around the damaged pages, and of each key
// its newest readable version. A key whose newer versions lay on a damaged page comes out as it was
// before them (or, if its deletion was lost, at all); one whose every version was lost is missing.
import { Database } from "bun:sqlite";
import { isCorruption } from "../storage/sqlitecheck.ts";
import type { ExportOptions, ExportSummary, LineSink } from "./export.ts";
import { encodeLine } from "./format.ts";

export interface SalvageSummary extends ExportSummary {
  /** Stretches of rows that could not be read. */
  damaged: number;
  /** Keys whose newest readable version could not be read in full (its value lay on a damaged page). */
  unreadable: number;
}

/** Newest readable revision of each key, by a walk of the table in revision order that steps over damage. */
function newestReadable(db: Database): { newest: Map<string, { rev: number; deleted: number }>; damaged: number } {
  const rows = db.prepare("SELECT rev, key, deleted FROM kv WHERE rev >= ? ORDER BY rev");
  const first = db.prepare("SELECT rev, key, deleted FROM kv WHERE rev >= ? ORDER BY rev LIMIT 1");
  /** Whether reading from revision x on gets past the first row (or finds none): x is after the damage. */
  const readableFrom = (x: number) => {
    try { first.get(x); return true; } catch (e) { if (isCorruption(e)) return false; throw e; }
  };
  const newest = new Map<string, { rev: number; deleted: number }>();
  let next = 0;
  let damaged = 0;
  for (;;) {
    try {
      for (const r of rows.iterate(next) as Iterable<{ rev: number; key: string; deleted: number }>) {
        newest.set(r.key, { rev: r.rev, deleted: r.deleted });
        next = r.rev + 1;
      }
      return { newest, damaged };
    } catch (e) {
      if (!isCorruption(e)) throw e;
    }
    damaged++;
    // Reading from `next` fails; find the first revision from which it does not: double the step, then bisect.
    let bad = next, step = 1;
    while (!readableFrom(bad + step)) {
      // Nothing past here can be read (the table's root page is damaged).
      if (step > Number.MAX_SAFE_INTEGER / 4) return { newest, damaged };
      bad += step;
      step *= 2;
    }
    let good = bad + step;
    while (good - bad > 1) {
      const mid = bad + Math.floor((good - bad) / 2);
      if (readableFrom(mid)) good = mid; else bad = mid;
    }
    next = good;
  }
}

/** Exports what can be read of the SQLite file, as exportTarget does a healthy store. */
export async function salvageExport(file: string, prefix: string, out: LineSink, o: ExportOptions): Promise<SalvageSummary> {
  const t0 = performance.now();
  const db = new Database(file, { readonly: true });
  try {
    const { newest, damaged } = newestReadable(db);
    const sum: SalvageSummary = { objects: 0, bytes: 0, resources: {}, revisions: [], ms: 0, damaged, unreadable: 0 };
    const value = db.prepare("SELECT value FROM kv WHERE rev = ?");
    const keys = [...newest.keys()].filter((k) => k.startsWith(prefix) && !newest.get(k)!.deleted).sort();
    sum.revisions.push([...newest.values()].reduce((m, v) => Math.max(m, v.rev), 0));
    let chunk = "";
    for (const key of keys) {
      let v: { value: string | Uint8Array } | null;
      try { v = value.get(newest.get(key)!.rev) as typeof v; } catch (e) { if (!isCorruption(e)) throw e; v = null; }
      if (!v) { sum.unreadable++; continue; }
      const line = encodeLine(key, v.value) + "\n";
      chunk += line;
      sum.bytes += Buffer.byteLength(line);
      const res = key.slice(prefix.length).split("/")[0];
      sum.resources[res] = (sum.resources[res] ?? 0) + 1;
      sum.objects++;
      if (o.progressEvery > 0 && sum.objects % o.progressEvery === 0) o.log(`exported ${sum.objects} objects`);
      if (sum.objects % o.chunkSize === 0) { out.write(chunk); await out.flush(); chunk = ""; }
    }
    if (chunk) { out.write(chunk); await out.flush(); }
    sum.ms = performance.now() - t0;
    return sum;
  } finally {
    db.close();
  }
}
