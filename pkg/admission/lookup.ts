// Reads for admission plugins: from the watch cache, as upstream's plugins read their informers; a miss
// is confirmed with a consistent read, since the object may have been written a moment ago.
import type { ResourceStore } from "../registry/generic.ts";
import type { Obj } from "../registry/types.ts";

export async function cachedGet(rs: ResourceStore, ns: string, name: string): Promise<Obj | undefined> {
  const read = (rv: string) => rs.get(ns, name, rv).catch((e) => {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  });
  return (await read("0")) ?? (await read(""));
}

/** Every object of the collection under ns ("" for all), from the cache. Shared objects: never mutate them. */
export async function cachedList(rs: ResourceStore, ns = ""): Promise<Obj[]> {
  return (await rs.list(ns, { resourceVersion: "0" })).items as Obj[];
}
