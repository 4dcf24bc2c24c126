// The informer's cache (client-go's cache.Indexer): objects by key (`namespace/name`, or `name` for
// cluster-scoped objects) and named indexes over them, each index function mapping an object to the values
// it is found under (pods by `spec.nodeName`, objects by namespace). Objects are shared, never copied:
// callers must not change what they get.
import type { Obj } from "./client.ts";

export type IndexFunc = (obj: Obj) => string[];
export type Indexers = Record<string, IndexFunc>;

/** The name of the index `namespaceIndex` builds (cache.NamespaceIndex). */
export const NAMESPACE_INDEX = "namespace";
export const namespaceIndex: IndexFunc = (obj) => [obj.metadata?.namespace ?? ""];

/** cache.MetaNamespaceKeyFunc: `namespace/name`, or `name` when the object has no namespace. */
export function objectKey(obj: Obj): string {
  const m = obj.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name}` : m.name;
}

/** What a delete handler gets when the object's last state was missed (cache.DeletedFinalStateUnknown). */
export class DeletedFinalStateUnknown {
  constructor(readonly key: string, readonly obj: Obj) {}
}

/** The object itself, or the last state a tombstone holds. */
export const objectOf = (o: Obj | DeletedFinalStateUnknown): Obj => (o instanceof DeletedFinalStateUnknown ? o.obj : o);

const EMPTY: readonly string[] = [];

export class Store {
  private readonly items = new Map<string, Obj>();
  private readonly indexers: Indexers = {};
  /** index name → indexed value → keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  /** The resourceVersion of the last list or event applied (what a watch resumes from). */
  resourceVersion = "";

  constructor(indexers: Indexers = {}) {
    this.addIndexers(indexers);
  }

  /** Adds index functions; objects already held are indexed at once. A name in use is refused. */
  addIndexers(indexers: Indexers): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers[name]) throw new Error(`indexer conflict: ${name}`);
      this.indexers[name] = fn;
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) for (const v of fn(obj)) addTo(index, v, key);
    }
  }

  hasIndex(name: string): boolean { return name in this.indexers; }
  get size(): number { return this.items.size; }
  get(key: string): Obj | undefined { return this.items.get(key); }
  /** The stored object with the same key as obj. */
  getFor(obj: Obj): Obj | undefined { return this.items.get(objectKey(obj)); }
  list(): Obj[] { return [...this.items.values()]; }
  listKeys(): string[] { return [...this.items.keys()]; }
  values(): IterableIterator<Obj> { return this.items.values(); }

  /** The objects an index holds under a value (e.g. byIndex("nodeName", "node-1")). */
  byIndex(indexName: string, value: string): Obj[] {
    const keys = this.indexOrThrow(indexName).get(value);
    if (!keys) return [];
    const out: Obj[] = [];
    for (const k of keys) out.push(this.items.get(k)!);
    return out;
  }

  /** The keys an index holds under a value. */
  indexKeys(indexName: string, value: string): string[] {
    return [...(this.indexOrThrow(indexName).get(value) ?? EMPTY)];
  }

  /** The values an index has entries for. */
  indexValues(indexName: string): string[] {
    return [...this.indexOrThrow(indexName).keys()];
  }

  /** Adds or replaces an object; returns the object it replaced. */
  upsert(obj: Obj): Obj | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    this.reindex(key, old, obj);
    return old;
  }

  /** Removes the object with obj's key; returns what was stored. */
  remove(obj: Obj): Obj | undefined { return this.removeKey(objectKey(obj)); }

  removeKey(key: string): Obj | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.items.delete(key);
    this.reindex(key, old, undefined);
    return old;
  }

  /** Holds exactly `items` from now on, at resourceVersion rv. */
  replace(items: Obj[], rv: string): void {
    this.items.clear();
    for (const index of this.indices.values()) index.clear();
    for (const obj of items) this.upsert(obj);
    this.resourceVersion = rv;
  }

  private indexOrThrow(name: string): Map<string, Set<string>> {
    const index = this.indices.get(name);
    if (!index) throw new Error(`Index with name ${name} does not exist`);
    return index;
  }

  private reindex(key: string, old: Obj | undefined, obj: Obj | undefined): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indices.get(name)!;
      const before = old ? fn(old) : EMPTY;
      const after = obj ? fn(obj) : EMPTY;
      // The common case: one value that did not change.
      if (before.length === 1 && after.length === 1 && before[0] === after[0]) continue;
      for (const v of before) if (!after.includes(v)) removeFrom(index, v, key);
      for (const v of after) addTo(index, v, key);
    }
  }
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, (keys = new Set()));
  keys.add(key);
}

function removeFrom(index: Map<string, Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) index.delete(value);
}
