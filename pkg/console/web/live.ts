// A live list: the server's Table of a resource (kubectl's columns), kept current by a watch of the same
// Table representation. Changes are gathered and handed on at most once per animation frame, so a burst of
// events costs one render. A watch the server ends is resumed from the last version seen; an expired one
// (410) starts over with a fresh list, and so does a lost connection, after a pause (1 s, growing to 5 s)
// during which the page says it is disconnected.
import { ApiError, TABLE, query, stream } from "./api.ts";

export interface Column { name: string; type: string; format?: string; priority?: number; description?: string }
export interface Row { key: string; cells: unknown[]; object: any }
export type LiveState =
  | { phase: "loading" }
  | { phase: "live"; columns: Column[]; rows: Row[] }
  | { phase: "error"; error: ApiError; columns?: Column[]; rows?: Row[]; retryIn?: number };

const rowKey = (r: { object?: any; cells: unknown[] }) => {
  const m = r.object?.metadata;
  return m ? `${m.namespace ?? ""}/${m.name}` : String(r.cells[0]);
};

export function watchTable(path: string, q: Record<string, string | undefined>, onState: (s: LiveState) => void): () => void {
  const abort = new AbortController();
  const rows = new Map<string, Row>();
  let columns: Column[] = [];
  let resourceVersion = "";
  let frame = 0;
  let failures = 0;
  const flush = () => {
    frame = 0;
    onState({ phase: "live", columns, rows: [...rows.values()] });
  };
  const changed = () => {
    if (!frame) frame = requestAnimationFrame(flush);
  };
  const take = (table: any, type: string) => {
    if (table?.columnDefinitions?.length) columns = table.columnDefinitions;
    for (const r of table?.rows ?? []) {
      const key = rowKey(r);
      if (type === "DELETED") rows.delete(key);
      else rows.set(key, { key, cells: r.cells, object: r.object });
    }
  };
  // In chunks of 500 (one consistent snapshot): the first screenful shows while the rest is read.
  const list = async () => {
    rows.clear();
    let cont = "";
    do {
      const table = await (await fetch(path + query({ ...q, includeObject: "Metadata", limit: 500, continue: cont }), { headers: { accept: TABLE }, signal: abort.signal })).json();
      if (table.kind === "Status") throw new ApiError(table);
      take(table, "ADDED");
      resourceVersion = table.metadata?.resourceVersion ?? "";
      cont = table.metadata?.continue ?? "";
      flush();
    } while (cont);
  };
  const watch = () => stream(path + query({ ...q, watch: "1", resourceVersion, allowWatchBookmarks: "true", includeObject: "Metadata" }), TABLE, abort.signal, (line) => {
    const ev = JSON.parse(line);
    if (ev.type === "ERROR") throw new ApiError(ev.object);
    resourceVersion = ev.object?.metadata?.resourceVersion || ev.object?.rows?.[0]?.object?.metadata?.resourceVersion || resourceVersion;
    if (ev.type !== "BOOKMARK") take(ev.object, ev.type);
    failures = 0;
    changed();
  });
  const run = async () => {
    while (!abort.signal.aborted) {
      try {
        if (!resourceVersion) await list();
        await watch();
      } catch (e) {
        if (abort.signal.aborted) return;
        const err = e instanceof ApiError ? e : new ApiError({ code: 0, reason: "Disconnected", message: String((e as Error).message ?? e) });
        if (err.code === 410 || err.status.reason === "Expired") {
          resourceVersion = "";
          continue;
        }
        if (err.code === 403 || err.code === 404 || err.code === 401) {
          onState({ phase: "error", error: err });
          return;
        }
        const retryIn = Math.min(5, 1 + failures++);
        onState({ phase: "error", error: err, columns, rows: [...rows.values()], retryIn });
        await new Promise((r) => setTimeout(r, retryIn * 1000));
        resourceVersion = "";
      }
    }
  };
  void run();
  return () => {
    abort.abort();
    cancelAnimationFrame(frame);
  };
}
