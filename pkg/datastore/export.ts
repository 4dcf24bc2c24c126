// kite datastore export: every key under the prefix, read in pages at one revision per store (a
// consistent snapshot), written one JSON line each (format.ts).
import { encodeLine } from "./format.ts";
import type { Target } from "./target.ts";

export interface ExportOptions {
  /** Keys per list request. */
  chunkSize: number;
  /** A progress line every this many objects (0: only the summary). */
  progressEvery: number;
  /** Where progress goes (stderr). */
  log: (line: string) => void;
}

export interface ExportSummary {
  objects: number;
  bytes: number;
  /** Objects per resource (the key segment after the prefix). */
  resources: Record<string, number>;
  /** The revision each store was read at. */
  revisions: number[];
  ms: number;
}

/** Where lines go: a Bun FileSink (stdout or a file). */
export interface LineSink {
  write(chunk: string): unknown;
  flush(): unknown;
}

export async function exportTarget(t: Target, out: LineSink, o: ExportOptions): Promise<ExportSummary> {
  const t0 = performance.now();
  const sum: ExportSummary = { objects: 0, bytes: 0, resources: {}, revisions: [], ms: 0 };
  for (const r of t.routes) {
    let revision = 0;
    let startKey: string | undefined;
    for (;;) {
      // The first page fixes the revision; the following ones read at it, so the export is one snapshot.
      const page = await r.store.list(r.prefix, { revision, startKey, limit: o.chunkSize });
      if (!revision) {
        revision = page.revision;
        sum.revisions.push(revision);
      }
      let chunk = "";
      for (const kv of page.items) {
        if (r.exclude.some((x) => kv.key.startsWith(x))) continue;
        const line = encodeLine(kv.key, kv.value) + "\n";
        chunk += line;
        sum.bytes += Buffer.byteLength(line);
        const res = kv.key.slice(t.prefix.length).split("/")[0];
        sum.resources[res] = (sum.resources[res] ?? 0) + 1;
        sum.objects++;
        if (o.progressEvery > 0 && sum.objects % o.progressEvery === 0) o.log(`exported ${sum.objects} objects`);
      }
      if (chunk) {
        out.write(chunk);
        await out.flush();
      }
      if (!page.more || page.items.length === 0) break;
      startKey = page.items[page.items.length - 1].key + "\x00";
    }
  }
  sum.ms = performance.now() - t0;
  return sum;
}
