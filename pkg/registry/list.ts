// Lists of a collection: selectors, chunking with continue tokens, and the resourceVersion rules of
// spec §4.6 — from the watch cache where it can answer, else from the store at the right revision.
import { badRequest, fromStoreError, gone, tooNewRevision } from "../api/status.ts";
import type { WatchCache } from "../storage/cacher.ts";
import { FIRST_PAGE, nextPageSize } from "../storage/pages.ts";
import { Slices } from "../util/slices.ts";
import { decodeContinue, encodeContinue } from "./continue.ts";
import type { ResourceStore } from "./generic.ts";
import { parseRV } from "./revisions.ts";
import type { ListOptions } from "./store-options.ts";
import { type Selector, everything } from "./selector.ts";
import { type Obj, apiVersionOf, listKindOf } from "./types.ts";

export async function listCollection(rs: ResourceStore, ns: string, o: ListOptions = {}): Promise<Obj> {
  const label = o.labelSelector ?? everything, field = o.fieldSelector ?? everything;
  const filtered = label !== everything || field !== everything;
  const prefix = rs.collectionPrefix(ns);
  let revision = 0, startKey: string | undefined, left: number | undefined;
  let notOlderThan = 0; // the store path waits for this revision; the cache path waits in listFromCache
  const rv = o.resourceVersion;
  const limit = o.limit && o.limit > 0 ? o.limit : 0;
  if (o.resourceVersionMatch && !["Exact", "NotOlderThan"].includes(o.resourceVersionMatch)) {
    throw badRequest(`resourceVersionMatch: Unsupported value: "${o.resourceVersionMatch}": supported values: "Exact", "NotOlderThan"`);
  }
  if (o.continue) {
    if (rv && rv !== "0") throw badRequest(`resourceVersion: Forbidden: specifying resource version is not allowed when using continue`);
    if (o.resourceVersionMatch) throw badRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`);
    const tok = decodeContinue(o.continue, prefix);
    revision = tok.rv;
    startKey = prefix + tok.start;
    left = tok.left;
    if (revision < (await rs.store.compactedRevision())) {
      throw gone("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.");
    }
  } else if (o.resourceVersionMatch) {
    if (!rv) throw badRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`);
    const n = parseRV(rv);
    if (o.resourceVersionMatch === "Exact") {
      if (rv === "0") throw badRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`);
      revision = n;
    }
    notOlderThan = n;
  } else if (rv && rv !== "0") {
    const n = parseRV(rv);
    notOlderThan = n;
    if (limit) revision = n; // limit with a resourceVersion reads exactly that revision
  }
  const cache = !o.continue && o.resourceVersionMatch !== "Exact" && (!limit || rv === "0") ? rs.watchCache() : undefined;
  if (cache && (rv || (await cache.servesConsistentReads()))) {
    const fromCache = await listFromCache(rs, cache, prefix, label, field, rv);
    if (fromCache) return fromCache;
  }
  if (notOlderThan > 0) await rs.waitForRevision(notOlderThan);
  const items: Obj[] = [];
  let listRev = revision, more = false, lastKey = "";
  // The unfiltered first chunk counts what follows its first page (`counted`); the pages read after it
  // take their keys off that count. Later chunks carry the count in the token.
  let counted: number | undefined, read = 0, ask = FIRST_PAGE;
  const slices = new Slices();
  try {
    // Keep reading pages (of a few MB each, see pages.ts) until the selection fills the limit or the range ends.
    for (;;) {
      const countRemaining = !filtered && left === undefined && counted === undefined;
      const want = limit ? Math.max(limit - items.length, filtered ? 100 : 0) : 0;
      if (want) ask = Math.min(ask, want);
      const page = await rs.store.list(prefix, { revision: listRev, startKey, limit: ask, countRemaining });
      listRev = page.revision;
      if (countRemaining) counted = read + page.items.length + page.remaining;
      let i = 0;
      for (; i < page.items.length; i++) {
        if (slices.due()) await slices.pause();
        const kv = page.items[i];
        lastKey = kv.key;
        const obj = rs.decode(kv);
        if (rs.matches(obj, label, field)) items.push(obj);
        if (limit && items.length >= limit) { i++; break; }
      }
      read += i;
      more = i < page.items.length || page.more;
      if ((limit && items.length >= limit) || !page.more) break;
      startKey = lastKey + "\x00";
      ask = nextPageSize(page.items, ask);
    }
  } catch (e) { throw fromStoreError(e, rs.q, ""); }
  const remaining = counted !== undefined ? counted - read : (left ?? 0) - items.length;
  const metadata: Obj = { resourceVersion: String(listRev) };
  if (limit && more) {
    metadata.continue = encodeContinue(prefix, listRev, lastKey.slice(prefix.length) + "\x00", filtered ? undefined : remaining);
    if (!filtered) metadata.remainingItemCount = remaining;
  }
  return { kind: listKindOf(rs.def), apiVersion: apiVersionOf(rs.def), metadata, items };
}

/**
 * Lists from the watch cache. "0" takes the cache as it is; unset is a consistent read (the cache
 * first catches up with the store's current revision; null when it cannot, and the store answers);
 * "N" waits until the cache reaches N.
 */
async function listFromCache(rs: ResourceStore, cache: WatchCache, prefix: string, label: Selector, field: Selector, rv?: string): Promise<Obj | null> {
  let want: number;
  try { want = rv === "0" ? 0 : rv ? parseRV(rv) : await rs.store.currentRevision(); } catch (e) { throw fromStoreError(e, rs.q, ""); }
  if (!(await cache.waitFor(want))) {
    if (!rv) return null;
    throw tooNewRevision();
  }
  const filtered = label !== everything || field !== everything;
  // the revision of the entries listed (the cache may move on while they are decoded)
  const rev = cache.rev;
  if (!filtered) {
    const same = lastLists.get(rs)?.get(prefix);
    if (same?.rev === rev) return same.list;
  }
  const items: Obj[] = [];
  // The first list after the cache filled decodes every object: a slice at a time.
  const slices = new Slices();
  for (const e of cache.list(prefix)) {
    if (slices.dueAfter(e.kv.value.length)) await slices.pause();
    const obj = rs.decodeEntry(e);
    if (!filtered || rs.matches(obj, label, field)) items.push(obj);
  }
  const list = { kind: listKindOf(rs.def), apiVersion: apiVersionOf(rs.def), metadata: { resourceVersion: String(rev) }, items };
  if (!filtered) remember(rs, prefix, rev, list);
  return list;
}

/**
 * The last unfiltered list from the cache per store and prefix, handed again (the same object) to the
 * next list of that prefix while the cache is at the same revision: its items are the same, and the
 * answer encoded for the first (../api/handlers/context.ts) serves them all. Like the items, it is
 * shared: read only. Up to MAX_PREFIXES prefixes (namespaces) per store are kept; one more starts them afresh.
 */
const lastLists = new WeakMap<ResourceStore, Map<string, { rev: number; list: Obj }>>();
const MAX_PREFIXES = 64;

function remember(rs: ResourceStore, prefix: string, rev: number, list: Obj) {
  let byPrefix = lastLists.get(rs);
  if (!byPrefix) lastLists.set(rs, (byPrefix = new Map()));
  if (byPrefix.size >= MAX_PREFIXES && !byPrefix.has(prefix)) byPrefix.clear();
  byPrefix.set(prefix, { rev, list });
}
