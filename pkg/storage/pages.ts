// Ranges are read a page at a time. Reading a whole range in one request held the event loop while
// hundreds of MB of values were read (SQLite) or parsed (etcd's JSON gateway): a page asks for about
// PAGE_BYTES of values, sized from the values the last page held, and the event loop gets a turn
// between pages.
import { nextTurn } from "../util/slices.ts";
import type { KeyValue, ListResult, Store } from "./store.ts";

const PAGE_BYTES = 4 << 20;
/** The first page's size: what values to expect is not known yet (objects are at most a few MB). */
export const FIRST_PAGE = 8;
/**
 * A page grows at most this much over the last one (values of one range differ in size). Small objects
 * reach kubectl's 500 in a second page.
 */
const GROWTH = 64;

/** How many keys to ask for after a page of `asked` keys that held `items`. */
export function nextPageSize(items: KeyValue[], asked: number): number {
  let bytes = 0;
  for (const kv of items) bytes += kv.value.length;
  const fits = items.length && bytes ? Math.floor((PAGE_BYTES * items.length) / bytes) : asked * GROWTH;
  return Math.max(1, Math.min(fits, asked * GROWTH));
}

/** Every key under prefix at one revision (the current one when 0), read a page at a time. */
export async function listAll(store: Store, prefix: string, revision = 0): Promise<ListResult> {
  const items: KeyValue[] = [];
  let startKey: string | undefined, limit = FIRST_PAGE;
  for (;;) {
    const page = await store.list(prefix, { revision, startKey, limit, countRemaining: false });
    revision = page.revision;
    for (const kv of page.items) items.push(kv);
    if (!page.more || page.items.length === 0) return { items, revision, more: false, remaining: 0 };
    startKey = page.items[page.items.length - 1].key + "\x00";
    limit = nextPageSize(page.items, limit);
    await nextTurn();
  }
}
