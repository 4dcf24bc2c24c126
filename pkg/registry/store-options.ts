// What the generic registry's callers pass in and get told: write, list and delete options, the store's
// settings, and the hooks (admission, caller checks, deletion observers) the server plugs into it.
import type { UserInfo } from "../auth/user.ts";
import type { Attributes } from "../admission/types.ts";
import type { FieldCheck } from "../fieldvalidation/index.ts";
import type { ResourceStore } from "./generic.ts";
import type { Selector } from "./selector.ts";
import type { Obj } from "./types.ts";

export interface WriteOptions {
  dryRun?: boolean;
  /** Who makes the change (managedFields); unset means the caller tracked ownership itself (apply). */
  fieldManager?: string;
  /**
   * A large object: let other requests run between the steps of the write (each is linear in the
   * object's size, ~100 ms for 50,000 keys), so one write never holds the server for all of them.
   */
  large?: boolean;
  /** How unknown and repeated fields are treated (the fieldValidation parameter); unset: dropped silently. */
  fields?: FieldCheck;
  /**
   * Who asks: strategies that record the requester (a CSR's spec.username) read it on create, and the
   * store's caller check (RBAC's escalation checks) on create and update; unset for the server's own writes.
   */
  user?: UserInfo;
  /** Where admission's warnings (webhooks') go: the response's Warning header. */
  warnings?: string[];
  /**
   * A write of the server's own object (pkg/server/bootstrap), or one the server composes itself (a pod's
   * binding): the kind's validation, which guards what clients may store, is skipped (the kubernetes
   * Endpoints may name a loopback advertise address; a pod's update may not set spec.nodeName).
   */
  serverOwned?: boolean;
}

export interface ListOptions {
  labelSelector?: Selector;
  fieldSelector?: Selector;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  gracePeriodSeconds?: number;
}

/** Watch cache settings of one resource: capacity 0 means no cache (reads and watches go to the store). */
export interface CacheConfig { capacity: number }

/** What a watch delivers to its consumer (the HTTP handler). */
export interface WatchSink {
  /** Returns false when the consumer can take no more (a slow watcher): the watch then ends. */
  event(type: "ADDED" | "MODIFIED" | "DELETED", obj: Obj): boolean;
  /** The watch has seen everything up to rev (for bookmarks). */
  progress(rev: number): void;
  fail(err: Error): void;
}

/** Told of deletions made through this store: the garbage collector follows them. */
export interface DeletionObserver {
  /** The object is gone from the store. */
  deleted(rs: ResourceStore, obj: Obj): void;
  /** The object is being deleted and holds the orphan or foregroundDeletion finalizer. */
  deleting(rs: ResourceStore, obj: Obj): void;
}

export interface StoreOptions {
  /** The key prefix (--etcd-prefix). */
  etcdPrefix: string;
  /** Type-specific admission that needs the stored objects (Services' addresses and ports); may fill fields in. */
  admit?: Admit;
  cache?: CacheConfig;
  /** Write values in the binary media type. */
  binary?: boolean;
  /** Deletes a delete-collection request runs at once (default 1). */
  deleteCollectionWorkers?: number;
}

/** The admission chain (pkg/admission): mutating, then validating; each throws a Status to refuse. */
export interface AdmissionHooks {
  admit(a: Attributes): Promise<void>;
  validate(a: Attributes): Promise<void>;
}
/**
 * Admits a create (old undefined) or an update of obj, filling fields in or throwing a Status; what it
 * returns is called once the write is done (stored or failed), to release what the write held.
 */
export type Admit = (obj: Obj, old: Obj | undefined, dryRun: boolean) => Promise<() => void>;
/** Refuses (by throwing a Status) a valid create (old undefined) or update a client may not make (RBAC's escalation checks). */
export type CallerCheck = (obj: Obj, old: Obj | undefined, user: UserInfo) => Promise<void> | void;
