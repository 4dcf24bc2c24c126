// A watch of a collection: the watch cache serves it (the store's history when the cache's window no
// longer reaches back), translated for the watcher's selection.
import { fromStoreError } from "../api/status.ts";
import type { CachedEvent } from "../storage/cacher.ts";
import type { WatchEvent } from "../storage/store.ts";
import type { ResourceStore } from "./generic.ts";
import { parseRV } from "./revisions.ts";
import type { WatchSink } from "./store-options.ts";
import type { Selector } from "./selector.ts";
import type { Obj } from "./types.ts";

/**
 * A watch of the collection under ns (spec §4.6): with rv unset or "0" the current state comes first
 * as ADDED; then every change after the start revision, translated for the selection (an object
 * leaving it is DELETED, entering it ADDED). Served by the watch cache, or by the store's history when
 * the cache's window no longer reaches back to rv. Returns the stop function.
 */
export async function watchCollection(rs: ResourceStore, ns: string, rv: string, label: Selector, field: Selector, sink: WatchSink): Promise<() => void> {
  const prefix = rs.collectionPrefix(ns);
  const inPrefix = (key: string) => key.startsWith(prefix);
  const matches = (o: Obj) => rs.matches(o, label, field);
  let after = parseRV(rv);
  const cache = rs.watchCache();
  if (cache) {
    if (!rv && (await cache.servesConsistentReads())) {
      try { await cache.waitFor(await rs.store.currentRevision()); } catch (e) { throw fromStoreError(e, rs.q, ""); }
    } else await cache.whenReady();
    let open = true;
    const w = {
      push: (ce: CachedEvent) => {
        if (!open || ce.rev <= after) return true;
        // Every watcher of a commit's fan-out asks for the same event; watchers of one selection share it.
        if (last.ce !== ce || last.prefix !== prefix || last.label !== label || last.field !== field) {
          const t = inPrefix(ce.ev.kv.key) ? translate(ce.ev, rs.decodeEntry(ce.cur), ce.prev && rs.decodeEntry(ce.prev), matches) : null;
          last = { ce, prefix, label, field, t };
        }
        return last.t ? sink.event(last.t.type, last.t.obj) : true;
      },
      progress: (r: number) => sink.progress(r),
      fail: (e: Error) => { open = false; sink.fail(e); },
    };
    if (!rv || rv === "0") {
      // The snapshot and the registration happen in one synchronous step: no event falls between.
      after = cache.rev;
      for (const e of cache.list(prefix)) {
        const obj = rs.decodeEntry(e);
        if (matches(obj) && !sink.event("ADDED", obj)) return () => {};
      }
    }
    if (cache.watch(after, w)) return () => { open = false; cache.unwatch(w); };
  }
  // No cache, or rv older than its window: the store replays its history, then streams.
  if (!rv || rv === "0") {
    const list = await rs.list(ns.length ? ns : "", { labelSelector: label, fieldSelector: field, limit: 0 });
    after = Number(list.metadata.resourceVersion);
    for (const item of list.items) if (!sink.event("ADDED", item)) return () => {};
  }
  let w: { close(): void } | undefined;
  let open = true;
  try {
    w = await rs.store.watch(prefix, after, (ev) => {
      if (!open) return;
      // The store calls its watchers in one turn: an error here ends this watch, never the others.
      try {
        const t = translate(ev, rs.decode(ev.kv), ev.prev && rs.decode(ev.prev), matches);
        if (!t || sink.event(t.type, t.obj)) return;
      } catch (e) {
        sink.fail(e instanceof Error ? e : new Error(String(e)));
      }
      open = false;
      w?.close();
    });
  } catch (e) { throw fromStoreError(e, rs.q, ""); }
  return () => { open = false; w!.close(); };
}

type Translated = { type: "ADDED" | "MODIFIED" | "DELETED"; obj: Obj } | null;

/** The last event translated from the cache, and for which selection. */
let last: { ce?: CachedEvent; prefix: string; label?: Selector; field?: Selector; t: Translated } = { prefix: "", t: null };

/** Maps a store event onto what a watcher of a selection sees. */
function translate(ev: WatchEvent, obj: Obj, prev: Obj | undefined, matches: (o: Obj) => boolean): Translated {
  if (ev.type === "DELETE") return matches(obj) ? { type: "DELETED", obj } : null;
  const now = matches(obj);
  const before = prev ? matches(prev) : false;
  if (now && (ev.created || !before)) return { type: "ADDED", obj };
  if (now) return { type: "MODIFIED", obj };
  if (before) return { type: "DELETED", obj };
  return null;
}
