// DELETE of a collection: the selected objects, each deleted as a single DELETE would (finalizers, grace,
// preconditions), by --delete-collection-workers at once; one already gone is skipped.
import type { ResourceStore } from "./generic.ts";
import type { DeleteOptions, ListOptions } from "./store-options.ts";
import type { Obj } from "./types.ts";

export async function deleteCollection(rs: ResourceStore, ns: string, lo: ListOptions, o: DeleteOptions, workers: number): Promise<Obj> {
  const list = await rs.list(ns, { labelSelector: lo.labelSelector, fieldSelector: lo.fieldSelector });
  const out: (Obj | undefined)[] = new Array(list.items.length);
  // each worker takes the next item; the answer keeps the list's order
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < list.items.length; i = next++) {
      const item = list.items[i]!;
      try {
        out[i] = (await rs.delete(item.metadata.namespace ?? "", item.metadata.name, o)).obj;
      } catch (e) {
        if ((e as any).code !== 404) throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, list.items.length) }, worker));
  return { ...list, items: out.filter((x) => x !== undefined) };
}
