// Shared informers (client-go tools/cache: Reflector + DeltaFIFO + sharedIndexInformer, v1.21 behaviour).
// One informer lists a collection (pages of 500 from resourceVersion "0", as the reflector does), keeps it
// in a Store, then watches from the list's resourceVersion with bookmarks, each watch lasting a random
// 5–10 minutes and resumed from the last resourceVersion seen (bookmarks advance it). A 410 Gone ends the
// watch and the collection is listed again; the difference to the store reaches the handlers as adds,
// updates and deletes (tombstones for objects deleted while nobody watched). Other failures back off
// (0.8 s doubling to 30 s, reset after 2 quiet minutes); a refused connection re-watches after a second.
// Handlers run synchronously, in order, after the store holds the change; a resync period re-delivers
// every object as an update to the handlers that asked for one.
import { ApiError, type Client, type Obj, type WatchEvent } from "./client.ts";
import { ConnectionError } from "./errors.ts";
import { log } from "./log.ts";
import { sleep } from "./ratelimit.ts";
import type { ResourceRef } from "./resources.ts";
import { DeletedFinalStateUnknown, objectKey, Store, type Indexers } from "./store.ts";

export interface EventHandler {
  add?(obj: Obj): void;
  update?(oldObj: Obj, obj: Obj): void;
  delete?(obj: Obj | DeletedFinalStateUnknown): void;
  /**
   * Only objects that pass reach this handler (FilteringResourceEventHandler): an update whose old object
   * passed and new one does not is a delete, the other way round an add. Tombstones are filtered too.
   */
  filter?(obj: Obj | DeletedFinalStateUnknown): boolean;
}

export interface Selection {
  /** Unset or "" for all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface InformerOptions extends Selection {
  /** The handlers' default resync period in milliseconds; 0 (the default) means none. */
  resyncPeriod?: number;
  indexers?: Indexers;
  /** The page size of lists (the reflector's 500). */
  pageSize?: number;
  /** The shortest watch; each lasts a random time in [this, 2·this) seconds (5 minutes, as upstream). */
  minWatchTimeoutSeconds?: number;
  /** Rewrites each object before the store keeps it (client-go's TransformFunc), e.g. dropManagedFields. */
  transform?: (obj: Obj) => Obj;
  /** Objects as PartialObjectMetadata (client-go's metadata informers): the metadata only, from the server. */
  metadataOnly?: boolean;
}

/** What a metadata informer asks for: lists and watch events as upstream's metadata client asks. */
const METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
const METADATA_WATCH = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

/** A transform for components that never read field ownership: managedFields is most of a small object. */
export function dropManagedFields(obj: Obj): Obj {
  if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  return obj;
}

interface Listener {
  handler: EventHandler;
  resyncMs: number;
  nextResync: number;
}

/** Upstream's smallest resync period for a handler. */
const MIN_RESYNC_MS = 1000;

/** A 410 answer (Expired or Gone): the resourceVersion asked for is no longer there. */
const isGone = (e: unknown) => e instanceof ApiError && e.code === 410;

/** wait.NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0): delays between failed list/watch runs. */
class Backoff {
  private delay = 0;
  private lastAt = 0;

  next(): number {
    const now = performance.now();
    // the first failure starts at 800 ms too, however soon after the process started it comes
    if (this.delay === 0 || now - this.lastAt > 120_000) this.delay = 800;
    else this.delay = Math.min(this.delay * 2, 30_000);
    this.lastAt = now;
    return this.delay * (1 + Math.random());
  }
}

export class SharedInformer {
  readonly store: Store;
  private readonly listeners: Listener[] = [];
  private readonly pageSize: number;
  private readonly minWatchTimeout: number;
  private readonly abort = new AbortController();
  private readonly syncWaiters: ((synced: boolean) => void)[] = [];
  private readonly apiVersion: string;
  private started = false;
  private stopped = false;
  private synced = false;
  /** The last list was a paged answer to resourceVersion "0" (no watch cache): keep paging. */
  private paginatedResult = false;
  /** The last resourceVersion seen is gone: the next list is a consistent read. */
  private rvUnavailable = false;
  private resyncTimer?: ReturnType<typeof setTimeout>;

  constructor(readonly client: Client, readonly resource: ResourceRef, readonly options: InformerOptions = {}) {
    this.store = new Store(options.indexers);
    this.pageSize = options.pageSize ?? 500;
    this.minWatchTimeout = options.minWatchTimeoutSeconds ?? 300;
    this.apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
  }

  /** What this informer watches, for messages: `pods (namespace a, labels x=y)`. */
  describe(): string {
    const o = this.options, parts: string[] = [];
    if (o.namespace) parts.push(`namespace ${o.namespace}`);
    if (o.labelSelector) parts.push(`labels ${o.labelSelector}`);
    if (o.fieldSelector) parts.push(`fields ${o.fieldSelector}`);
    const r = this.resource.group ? `${this.resource.resource}.${this.resource.group}` : this.resource.resource;
    return parts.length ? `${r} (${parts.join(", ")})` : r;
  }

  /** The resourceVersion a watch resumes from (the last list's, or the last event's or bookmark's). */
  get lastSyncResourceVersion(): string { return this.store.resourceVersion; }

  /**
   * Adds a handler, before or after start; added late, it gets every object held now as an add.
   * resyncPeriod (ms) defaults to the informer's; 0 means none, and below a second it is a second.
   */
  addEventHandler(handler: EventHandler, resyncPeriod = this.options.resyncPeriod ?? 0): void {
    const resyncMs = resyncPeriod > 0 ? Math.max(resyncPeriod, MIN_RESYNC_MS) : 0;
    const l: Listener = { handler, resyncMs, nextResync: performance.now() + resyncMs };
    this.listeners.push(l);
    if (this.started) for (const obj of this.store.values()) this.notifyAdd(l, obj);
    if (this.synced) this.scheduleResync();
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.run();
  }

  /** True once the first list has reached the store and the handlers. */
  hasSynced(): boolean { return this.synced; }

  /** Resolves true once synced, false if the informer is stopped or the signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (v: boolean) => { signal?.removeEventListener("abort", onAbort); resolve(v); };
      const onAbort = () => { this.syncWaiters.splice(this.syncWaiters.indexOf(done), 1); resolve(false); };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.syncWaiters.push(done);
    });
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    clearTimeout(this.resyncTimer);
    for (const w of this.syncWaiters.splice(0)) w(false);
  }

  private async run(): Promise<void> {
    const backoff = new Backoff();
    while (!this.stopped) {
      try {
        await this.listAndWatch();
      } catch (e) {
        if (this.stopped) break;
        log(`${this.describe()}: list and watch failed: ${(e as Error).message}`);
      }
      if (this.stopped) break;
      try { await sleep(backoff.next(), this.abort.signal); } catch { break; }
    }
  }

  /** The reflector's choice: "0" (any cached state) first, the last seen version after, "" once it is gone. */
  private relistResourceVersion(): string {
    if (this.rvUnavailable) return "";
    return this.store.resourceVersion || "0";
  }

  private async listAndWatch(): Promise<void> {
    const rv = this.relistResourceVersion();
    let listed: { items: Obj[]; rv: string };
    try {
      listed = await this.list(rv);
    } catch (e) {
      if (!isGone(e) || rv === "") throw e;
      this.rvUnavailable = true;
      listed = await this.list("");
    }
    this.rvUnavailable = false;
    this.replace(listed.items, listed.rv);
    await this.watch();
  }

  private async list(rv: string): Promise<{ items: Obj[]; rv: string }> {
    // As the reflector: a list at a given version goes unpaged (served whole from the watch cache), unless
    // an earlier list showed the server pages (no watch cache); "0" and "" go paged.
    const paged = this.paginatedResult || rv === "" || rv === "0";
    const items: Obj[] = [];
    let cont: string | undefined;
    let listRv = "";
    let pages = 0;
    do {
      const page = await this.client.list(this.resource, {
        ...this.selection(), limit: paged ? this.pageSize : undefined, continue: cont,
        resourceVersion: cont ? undefined : rv || undefined, signal: this.abort.signal, accept: this.options.metadataOnly ? METADATA_LIST : undefined,
      });
      for (let obj of page.items ?? []) {
        if (this.options.transform) obj = this.options.transform(obj);
        // List items carry no kind; watch events' objects do. Every object in the store has one.
        obj.kind ??= this.resource.kind;
        obj.apiVersion ??= this.apiVersion;
        items.push(obj);
      }
      listRv = page.metadata?.resourceVersion ?? listRv;
      cont = page.metadata?.continue || undefined;
      pages++;
    } while (cont);
    if (rv === "0" && pages > 1) this.paginatedResult = true;
    return { items, rv: listRv };
  }

  private selection(): Selection {
    const { namespace, labelSelector, fieldSelector } = this.options;
    return { namespace, labelSelector, fieldSelector };
  }

  /** Watches until a 410 (returns: relist) or the informer stops; other failures throw. */
  private async watch(): Promise<void> {
    while (!this.stopped) {
      const timeoutSeconds = Math.floor(this.minWatchTimeout * (1 + Math.random()));
      const startedAt = performance.now();
      let events = 0;
      try {
        const stream = this.client.watch(this.resource, {
          ...this.selection(), resourceVersion: this.store.resourceVersion, allowWatchBookmarks: true,
          timeoutSeconds, signal: this.abort.signal, accept: this.options.metadataOnly ? METADATA_WATCH : undefined,
        });
        for await (const ev of stream) {
          events++;
          if (!this.handleEvent(ev)) return;
        }
      } catch (e) {
        if (this.stopped) return;
        if (isGone(e)) return;
        if (events > 0) continue; // the stream broke after it worked: resume from the last version
        if (e instanceof ConnectionError && /refused/i.test(e.message)) {
          // The server is restarting: the versions are likely still there, so watch again, not list.
          try { await sleep(1000, this.abort.signal); } catch { return; }
          continue;
        }
        throw e;
      }
      if (events === 0 && performance.now() - startedAt < 1000 && !this.stopped) {
        throw new Error("very short watch: unexpected watch close - watch lasted less than a second and no items received");
      }
    }
  }

  /** Applies one watch event; false when it says the watch's version is gone. */
  private handleEvent(ev: WatchEvent): boolean {
    const obj = this.options.transform && ev.type !== "BOOKMARK" && ev.type !== "ERROR" ? this.options.transform(ev.object) : ev.object;
    switch (ev.type) {
      case "ADDED":
      case "MODIFIED": {
        const old = this.store.upsert(obj);
        this.store.resourceVersion = obj.metadata.resourceVersion;
        if (old) this.distributeUpdate(old, obj, false);
        else for (const l of this.listeners) this.notifyAdd(l, obj);
        return true;
      }
      case "DELETED":
        this.store.remove(obj);
        this.store.resourceVersion = obj.metadata.resourceVersion;
        for (const l of this.listeners) this.notifyDelete(l, obj);
        return true;
      case "BOOKMARK":
        this.store.resourceVersion = obj.metadata.resourceVersion;
        return true;
      case "ERROR":
        if (obj?.code === 410) return false;
        throw new ApiError(obj?.code ?? 500, obj ?? {});
      default:
        throw new Error(`unexpected watch event type ${String((ev as { type: unknown }).type)}`);
    }
  }

  /** Makes the store hold a fresh list, telling handlers what changed (DeltaFIFO.Replace). */
  private replace(items: Obj[], rv: string): void {
    if (this.store.size === 0) {
      this.store.replace(items, rv);
      for (const obj of items) for (const l of this.listeners) this.notifyAdd(l, obj);
    } else {
      const seen = new Set<string>();
      for (const obj of items) {
        seen.add(objectKey(obj));
        const old = this.store.upsert(obj);
        if (!old) for (const l of this.listeners) this.notifyAdd(l, obj);
        // An unchanged object is a resync: only handlers with a resync period hear of it.
        else this.distributeUpdate(old, obj, old.metadata?.resourceVersion === obj.metadata?.resourceVersion);
      }
      for (const key of this.store.listKeys()) {
        if (seen.has(key)) continue;
        const tombstone = new DeletedFinalStateUnknown(key, this.store.removeKey(key)!);
        for (const l of this.listeners) this.notifyDelete(l, tombstone);
      }
      this.store.resourceVersion = rv;
    }
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w(true);
      this.scheduleResync();
    }
  }

  private distributeUpdate(old: Obj, obj: Obj, isSync: boolean): void {
    for (const l of this.listeners) if (!isSync || l.resyncMs > 0) this.notifyUpdate(l, old, obj);
  }

  private scheduleResync(): void {
    clearTimeout(this.resyncTimer);
    let next = Infinity;
    for (const l of this.listeners) if (l.resyncMs > 0) next = Math.min(next, l.nextResync);
    if (next === Infinity || this.stopped) return;
    this.resyncTimer = setTimeout(() => this.resync(), Math.max(0, next - performance.now()));
  }

  /** Re-delivers every object as an update to the handlers whose resync period has come round. */
  private resync(): void {
    const now = performance.now();
    const due = this.listeners.filter((l) => l.resyncMs > 0 && l.nextResync <= now);
    for (const obj of this.store.values()) for (const l of due) this.notifyUpdate(l, obj, obj);
    for (const l of due) l.nextResync = now + l.resyncMs;
    this.scheduleResync();
  }

  private notifyAdd(l: Listener, obj: Obj): void {
    const h = l.handler;
    if (h.add && (!h.filter || h.filter(obj))) this.call(() => h.add!(obj));
  }

  private notifyUpdate(l: Listener, old: Obj, obj: Obj): void {
    const h = l.handler;
    if (!h.filter) {
      if (h.update) this.call(() => h.update!(old, obj));
      return;
    }
    const was = h.filter(old), is = h.filter(obj);
    if (was && is) { if (h.update) this.call(() => h.update!(old, obj)); }
    else if (is) { if (h.add) this.call(() => h.add!(obj)); }
    else if (was) { if (h.delete) this.call(() => h.delete!(old)); }
  }

  private notifyDelete(l: Listener, obj: Obj | DeletedFinalStateUnknown): void {
    const h = l.handler;
    if (h.delete && (!h.filter || h.filter(obj))) this.call(() => h.delete!(obj));
  }

  /** A handler that throws is logged; the others still run. */
  private call(fn: () => void): void {
    try { fn(); } catch (e) { log(`${this.describe()}: event handler failed: ${(e as Error)?.stack ?? e}`); }
  }
}

/**
 * Informers shared by resource and selection: every caller asking for the same one gets the same list and
 * watch. Indexers asked for by several callers are added once per name.
 */
export class InformerFactory {
  private readonly informers = new Map<string, SharedInformer>();

  constructor(readonly client: Client, readonly defaults: Omit<InformerOptions, keyof Selection | "indexers"> = {}) {}

  /** `transform` replaces the factory's for this informer; the caller that makes the informer sets it. */
  informerFor(resource: ResourceRef, o: Selection & { indexers?: Indexers; transform?: InformerOptions["transform"] } = {}): SharedInformer {
    const key = JSON.stringify([resource.group, resource.version, resource.resource, o.namespace ?? "", o.labelSelector ?? "", o.fieldSelector ?? ""]);
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new SharedInformer(this.client, resource, {
        ...this.defaults, namespace: o.namespace, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector,
        transform: o.transform ?? this.defaults.transform,
      });
      this.informers.set(key, inf);
    }
    const store = inf.store;
    const fresh = Object.entries(o.indexers ?? {}).filter(([name]) => !store.hasIndex(name));
    if (fresh.length) store.addIndexers(Object.fromEntries(fresh));
    return inf;
  }

  /** Starts every informer made so far (and not started yet). */
  start(): void { for (const inf of this.informers.values()) inf.start(); }

  /** Resolves true once every informer made so far has synced; false if one stopped or the signal aborted. */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((inf) => inf.waitForSync(signal)));
    return results.every(Boolean);
  }

  stop(): void { for (const inf of this.informers.values()) inf.stop(); }
}
