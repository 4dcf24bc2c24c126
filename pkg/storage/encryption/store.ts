// Encryption at rest as a Store decorator: values of the configured resources pass through their
// transformer on the way to and from the store underneath (SQLite or etcd alike); every other key passes
// untouched. Watch events are decrypted in order, one after another, before they are delivered.
import { hasPrefix } from "../../protobuf/codec.ts";
import type { KeyValue, ListOptions, ListResult, Store, Value, WatchEvent, Watcher } from "../store.ts";
import type { ValueTransformer } from "./transformer.ts";

const utf8 = new TextDecoder();
const toUtf8 = new TextEncoder();

/** A decrypted value in the form the registry reads: bytes in the binary media type, else text. */
const restore = (b: Uint8Array): Value => (hasPrefix(b) ? b : utf8.decode(b));
const bytesOf = (v: Value) => (typeof v === "string" ? toUtf8.encode(v) : v);

export class EncryptedStore implements Store {
  readonly name: string;

  /** `byPrefix`: key prefix (`/registry/secrets/`) → the transformer of that resource. */
  constructor(private inner: Store, private byPrefix: Map<string, ValueTransformer>) {
    this.name = inner.name;
  }

  private transformerOf(key: string): ValueTransformer | undefined {
    const cut = key.indexOf("/", key.indexOf("/", 1) + 1);
    return cut < 0 ? undefined : this.byPrefix.get(key.slice(0, cut + 1));
  }

  private async read(kv: KeyValue): Promise<KeyValue> {
    const t = this.transformerOf(kv.key);
    if (!t || kv.value === "") return kv;
    const { data, stale } = await t.fromStorage(bytesOf(kv.value), kv.key);
    return { ...kv, value: restore(data), ...(stale ? { stale } : {}) };
  }

  private async write(key: string, value: Value): Promise<Value> {
    const t = this.transformerOf(key);
    return t ? t.toStorage(value, key) : value;
  }

  private async event(ev: WatchEvent): Promise<WatchEvent> {
    return { ...ev, kv: await this.read(ev.kv), prev: ev.prev && (await this.read(ev.prev)) };
  }

  /** A queue that runs its steps one after another: watch events are delivered decrypted, in order. */
  private queue(onError?: (err: Error) => void) {
    let chain = Promise.resolve();
    const run = (step: () => Promise<void>) => { chain = chain.then(step).catch((e) => onError?.(e as Error)); };
    return { run, drained: () => chain };
  }

  currentRevision() { return this.inner.currentRevision(); }
  compactedRevision() { return this.inner.compactedRevision(); }
  count(prefix: string) { return this.inner.count(prefix); }
  compact(revision: number) { return this.inner.compact(revision); }
  close() { return this.inner.close(); }

  async get(key: string, revision?: number) {
    const kv = await this.inner.get(key, revision);
    return kv && this.read(kv);
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const r = await this.inner.list(prefix, opts);
    return { ...r, items: await Promise.all(r.items.map((kv) => this.read(kv))) };
  }

  async create(key: string, value: Value) {
    return { ...(await this.inner.create(key, await this.write(key, value))), value };
  }

  async update(key: string, value: Value, expectedModRevision: number) {
    return { ...(await this.inner.update(key, await this.write(key, value), expectedModRevision)), value };
  }

  async delete(key: string, expectedModRevision?: number) {
    return this.read(await this.inner.delete(key, expectedModRevision));
  }

  async watch(prefix: string, afterRevision: number, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Promise<Watcher> {
    const q = this.queue(onError);
    const w = await this.inner.watch(prefix, afterRevision, (ev) => q.run(async () => onEvent(await this.event(ev))), onError);
    return this.drainedFirst(w, q.drained);
  }

  get listAndWatch(): Store["listAndWatch"] {
    const inner = this.inner.listAndWatch?.bind(this.inner);
    if (!inner) return undefined;
    return async (prefix, onList, onEvent, onError) => {
      const q = this.queue(onError);
      const w = await inner(
        prefix,
        (r) => q.run(async () => onList({ ...r, items: await Promise.all(r.items.map((kv) => this.read(kv))) })),
        (ev) => q.run(async () => onEvent(await this.event(ev))),
        onError,
      );
      // the caller takes the list as delivered once this resolves
      await q.drained();
      return this.drainedFirst(w, q.drained);
    };
  }

  /** A watcher whose progress counts only events already decrypted and delivered. */
  private drainedFirst(w: Watcher, drained: () => Promise<void>): Watcher {
    const progress = w.progress?.bind(w);
    return {
      close: () => w.close(),
      ...(progress ? { progress: async (atLeast?: number, timeoutMs?: number) => { const r = await progress(atLeast, timeoutMs); await drained(); return r; } } : {}),
    };
  }
}
