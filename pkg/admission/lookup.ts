// Reads for admission plugins: from the watch cache's current state, as upstream's plugins read their
// informers; a miss is confirmed with a consistent read, since the object may have been written a moment
// ago. Until a resource's cache has loaded, reads go through the store.
import type { ResourceStore } from "../registry/generic.ts";
import type { Obj } from "../registry/types.ts";

export async function cachedGet(rs: ResourceStore, ns: string, name: string): Promise<Obj | undefined> {
  const entry = rs.watchCache()?.get(rs.key(ns, name));
  if (entry) return rs.decodeEntry(entry);
  return rs.get(ns, name, "").catch((e) => {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  });
}

/** Every object of the collection under ns ("" for all). Shared objects: never mutate them. */
export async function cachedList(rs: ResourceStore, ns = ""): Promise<Obj[]> {
  const cache = rs.watchCache();
  if (cache) return cache.list(rs.collectionPrefix(ns)).map((e) => rs.decodeEntry(e));
  return (await rs.list(ns, { resourceVersion: "0" })).items as Obj[];
}
