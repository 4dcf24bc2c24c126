// The Store interface: an MVCC key-value log, as etcd keeps one (DESIGN.md §3).
// Every backend (SQLite now, etcd later) implements exactly this and passes test/storage/.

/** A stored value: JSON text, or bytes in the binary media type (--storage-media-type). */
export type Value = string | Uint8Array;

/** One key at one revision. `value` is the serialized object. */
export interface KeyValue {
  key: string;
  value: Value;
  /** Revision of the write that produced this value (the object's resourceVersion). */
  modRevision: number;
  /** Revision at which the key was created. */
  createRevision: number;
  /**
   * True when the value was read through an encryption provider other than the one that writes now
   * (encryption/): an update rewrites it even when the object did not change, as key rotation needs.
   */
  stale?: boolean;
}

export type WatchEventType = "PUT" | "DELETE";

export interface WatchEvent {
  type: WatchEventType;
  /** For PUT the new value; for DELETE the last value before the delete, with modRevision = the delete's revision. */
  kv: KeyValue;
  /** For PUT of an existing key, the value it replaced. */
  prev?: KeyValue;
  /** True when the PUT created the key. */
  created: boolean;
}

export interface ListOptions {
  /** Read at this revision (0 or undefined = current). */
  revision?: number;
  /** Only keys >= startKey (for continue tokens). */
  startKey?: string;
  /** At most this many items; `more` says whether others remain. */
  limit?: number;
  /** Count the keys after the page (`remaining`); a backend may skip the count when false. */
  countRemaining?: boolean;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when more keys after the last item remain. */
  more: boolean;
  /** Keys after the last returned one (when `more` and asked for with countRemaining). */
  remaining: number;
}

export interface Watcher {
  close(): void;
  /**
   * Resolves with a revision R such that every event of this watch up to R has been delivered. With
   * `atLeast`, waits up to `timeoutMs` for R to reach it first. A watch that cannot tell leaves it out.
   */
  progress?(atLeast?: number, timeoutMs?: number): Promise<number>;
}

export interface Store {
  readonly name: string;
  /** Newest revision of the store. */
  currentRevision(): Promise<number>;
  /** Oldest revision still readable; reads below it fail with Compacted. */
  compactedRevision(): Promise<number>;
  get(key: string, revision?: number): Promise<KeyValue | null>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Number of live keys under prefix. */
  count(prefix: string): Promise<number>;
  /** Fails with KeyExists when the key is live. */
  create(key: string, value: Value): Promise<KeyValue>;
  /** Compare-and-swap: fails with Conflict unless the key's modRevision equals expected, NotFound when absent. */
  update(key: string, value: Value, expectedModRevision: number): Promise<KeyValue>;
  /** Deletes the key; with expectedModRevision it is a compare-and-swap. Returns the last value. */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /** Every change under prefix after `afterRevision`, in revision order, then live ones. Fails with Compacted when history is gone. */
  watch(prefix: string, afterRevision: number, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Promise<Watcher>;
  /**
   * For watch caches: the keys under prefix at some revision R (`onList`, called once), then every change
   * after R (`onEvent`), from a watch that can report its progress. Events carry no `prev`, and a DELETE
   * only its key and revision: the cache holds what they would repeat (reading them cost etcd a read per
   * event). Backends without a better way leave it out and caches use list, then watch.
   */
  listAndWatch?(prefix: string, onList: (list: ListResult) => void, onEvent: (ev: WatchEvent) => void, onError: (err: Error) => void): Promise<Watcher>;
  /** Drop history at or below revision (the live value of each key is kept). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}

export type StoreErrorCode = "KeyExists" | "NotFound" | "Conflict" | "Compacted" | "FutureRevision" | "Unavailable" | "TooLarge";

/** Typed storage failure; the API layer maps it to a Status in one place (pkg/api/status.ts). */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    readonly key: string,
    message?: string,
    /** For Conflict, the key's current modRevision. */
    readonly currentRevision?: number,
  ) {
    super(message ?? `${code}: ${key}`);
  }
}

/** The first key after every key that starts with prefix (for range scans). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
