// The generic registry: one implementation of create/get/list/update/delete for every resource type,
// driven by its declaration and strategy hooks. It speaks objects; storage speaks keys and JSON.
import { randomUUID } from "node:crypto";
import {
  alreadyExists, badRequest, conflict, fromStoreError, notFound, tooNewRevision, type Qualified,
} from "../api/status.ts";
import { type Entry, WatchCache } from "../storage/cacher.ts";
import type { KeyValue, Store, Value } from "../storage/store.ts";
import { canEncode, decodeObject as decodeProtobuf, encodeObject as encodeProtobuf } from "../protobuf/index.ts";
import type { FieldCheck } from "../fieldvalidation/index.ts";
import { type FieldLabelRules, fieldLabelRules } from "./fieldlabels.ts";
import { type Selector, everything, parseFieldSelector } from "./selector.ts";
import { type Obj, type ResourceDef, type UpdateTarget, apiVersionOf } from "./types.ts";
import type { UserInfo } from "../auth/user.ts";
import type { Attributes, Operation } from "../admission/types.ts";
import { applyDefaults } from "../defaults/index.ts";
import { updateManagedFields } from "../apply/index.ts";
import { checkBody } from "./body.ts";
import { deleteCollection } from "./deletecollection.ts";
import { now, randomSuffix } from "./metadata-values.ts";
import { lostRace, parseRV, precondition } from "./revisions.ts";
import { checkPreconditions, deletionPlan } from "./deletion.ts";
import { listCollection } from "./list.ts";
import { rememberWritten, storedJSON } from "./serialized.ts";
import { watchCollection } from "./watch.ts";
import { upgradeStored } from "./versions.ts";
import { applyKindDefaults, checkAsWritten, validateWrite } from "./kind-checks.ts";
import { rowsForHub } from "../convert/index.ts";
import type { Admit, AdmissionHooks, CacheConfig, CallerCheck, DeleteOptions, DeletionObserver, ListOptions, StoreOptions, WatchSink, WriteOptions } from "./store-options.ts";

/** One turn of the event loop, I/O included. */
export const breather = () => new Promise<void>((r) => setImmediate(r));

/** What a generation bump watches: everything but metadata, and but status when status is its own subresource. */
function specPart(o: Obj, statusApart: boolean): Obj {
  const { metadata: _m, kind: _k, apiVersion: _a, ...rest } = o;
  if (statusApart) delete rest.status;
  return rest;
}

export class ResourceStore {
  readonly q: Qualified;
  readonly prefix: string;
  private fieldLabels: FieldLabelRules;

  private cache?: WatchCache;
  observer?: DeletionObserver;

  /** For a computed type (def.computed): its objects (of namespace ns, "" for all), made on each read. */
  computed?: (ns: string) => Promise<Obj[]>;

  private cacheConfig: CacheConfig;
  /** The server's admission chain (none: every write is admitted, as in tools that open a store directly). */
  admission?: AdmissionHooks;
  private admit?: Admit;
  /** Checks of who writes, run after validation on the writes of clients. */
  callerCheck?: CallerCheck;
  /** For a version served through the conversion table: the store of its hub, whose caller checks apply. */
  hubStore?: ResourceStore;
  /** Store values in the binary media type (--storage-media-type), for kinds that have one. */
  private binary: boolean;
  private deleteWorkers: number;

  constructor(readonly def: ResourceDef, readonly store: Store, o: StoreOptions) {
    this.cacheConfig = o.cache ?? { capacity: 100 };
    this.admit = o.admit;
    this.binary = !!o.binary;
    this.deleteWorkers = Math.max(1, o.deleteCollectionWorkers ?? 1);
    this.q = { group: def.group, resource: def.plural, kind: def.kind };
    this.prefix = `${o.etcdPrefix.replace(/\/$/, "")}/${def.storageResource ?? def.plural}/`;
    this.fieldLabels = fieldLabelRules(def);
  }

  /** A field selector on this kind (400 for a label it does not support). */
  fieldSelector(s: string | null | undefined): Selector { return parseFieldSelector(s, (l) => this.fieldLabels.convert(l)); }

  key(ns: string, name: string) { return this.def.namespaced ? `${this.prefix}${ns}/${name}` : `${this.prefix}${name}`; }
  collectionPrefix(ns: string) { return this.def.namespaced && ns ? `${this.prefix}${ns}/` : this.prefix; }

  // ---- encoding: stored values never carry resourceVersion; reads stamp it from the revision.
  // Values are read in either media type, whatever the server writes now.
  decode(kv: KeyValue): Obj {
    let obj = (typeof kv.value === "string" ? JSON.parse(kv.value) : decodeProtobuf(kv.value)) as Obj;
    obj = this.def.codec ? this.def.codec.fromStorage(obj) : upgradeStored(this.def, obj);
    // as upstream defaults every object it decodes: one stored before a default existed reads with it
    applyDefaults(this.def.group, this.def.kind, obj);
    obj.metadata.resourceVersion = String(kv.modRevision);
    return obj;
  }

  encode(obj: Obj): Value {
    const stored = this.storedForm(obj);
    if (this.binary && canEncode(stored.apiVersion, stored.kind)) return encodeProtobuf(stored);
    // an object stored as it is (a create's) keeps its JSON's parts for the answer (rememberWritten)
    return stored === obj ? storedJSON(obj) : JSON.stringify(stored);
  }

  /** The stored object a write starts from, as this version serves it (./converted.ts converts it first). */
  protected async current(stored: Obj): Promise<Obj> { return stored; }

  /** What a write stores (./converted.ts converts the object to the storage version first). */
  protected async storedValue(obj: Obj): Promise<Value> { return this.encode(obj); }

  /** The object as it is stored: no resourceVersion or selfLink, in the storage version. */
  private storedForm(obj: Obj): Obj {
    if (!this.def.codec && !("resourceVersion" in obj.metadata) && !("selfLink" in obj.metadata)) return obj;
    const { resourceVersion: _rv, selfLink: _sl, ...metadata } = obj.metadata;
    const stored: Obj = { ...obj, metadata };
    return this.def.codec ? this.def.codec.toStorage(stored) : stored;
  }

  /**
   * The watch cache, started on first use so start-up stays cheap. Until it has loaded (or when it could
   * not: the store was unreachable) this answers undefined and readers go to the store, never waiting.
   */
  watchCache(): WatchCache | undefined {
    if (this.cacheConfig.capacity <= 0) return undefined;
    if (!this.cache || this.cache.failed) this.cache = new WatchCache(this.store, this.prefix, this.cacheConfig.capacity);
    return this.cache.isReady ? this.cache : undefined;
  }

  /**
   * For types whose cache decides admission (namespaces): a write returns once this server's watch cache
   * holds it, so the next request here sees it (read-your-writes), whatever the store's watch lag.
   */
  private async settle(rev: number) {
    if (this.def.readYourWrites && this.cache?.isReady) await this.cache.waitFor(rev, 2000);
  }

  /** Stops the watch cache (the type is no longer served); open watches end. */
  close() {
    this.cache?.close();
    this.cache = undefined;
    this.cacheConfig = { capacity: 0 };
  }

  /** Decodes a cached entry once; the object is shared, so callers must not mutate it. */
  decodeEntry(e: Entry): Obj {
    let o = e.memo.get("obj") as Obj | undefined;
    if (!o) e.memo.set("obj", (o = this.decode(e.kv)));
    return o;
  }

  fieldsOf(obj: Obj): Record<string, string> { return this.fieldLabels.values(obj); }

  matches(obj: Obj, label: Selector, field: Selector) {
    if (label === everything && field === everything) return true;
    return label(obj.metadata?.labels ?? {}) && field(this.fieldsOf(obj));
  }

  private fail(e: unknown, name: string): never { throw fromStoreError(e, this.q, name); }

  /** Waits until the store reaches revision rv ("not older than"), then answers 504 as upstream. */
  async waitForRevision(rv: number) {
    const deadline = Date.now() + 3000;
    while ((await this.store.currentRevision()) < rv) {
      if (Date.now() > deadline) throw tooNewRevision();
      await Bun.sleep(50);
    }
  }

  // ---- reads
  async get(ns: string, name: string, resourceVersion?: string): Promise<Obj> {
    if (this.computed) {
      const found = (await this.computed(ns)).find((o) => o.metadata.name === name);
      if (!found) throw notFound(this.q, name);
      return found;
    }
    const rv = parseRV(resourceVersion);
    const unset = resourceVersion === undefined || resourceVersion === "";
    const cache = this.watchCache();
    if (cache && (!unset || (await cache.servesConsistentReads()))) {
      // Unset: a consistent read — the cache first catches up with the store's current revision.
      // "0": any version; "N": not older than N.
      let want: number;
      try { want = unset ? await this.store.currentRevision() : rv; } catch (e) { this.fail(e, name); }
      if (await cache.waitFor(want)) {
        const e = cache.get(this.key(ns, name));
        if (!e) throw notFound(this.q, name);
        return this.decodeEntry(e);
      }
      // A consistent read the cache could not catch up with goes to the store.
      if (!unset) throw tooNewRevision();
    }
    if (rv > 0) await this.waitForRevision(rv);
    let kv: KeyValue | null;
    try { kv = await this.store.get(this.key(ns, name)); } catch (e) { this.fail(e, name); }
    if (!kv) throw notFound(this.q, name);
    return this.decode(kv);
  }

  /** A list of the collection under ns (selectors, chunking, resourceVersion rules: ./list.ts). */
  list(ns: string, o: ListOptions = {}): Promise<Obj> {
    if (this.computed) return this.listComputed(ns, o);
    return listCollection(this, ns, o);
  }

  /** A computed type's list carries no resourceVersion: its objects are not stored. */
  private async listComputed(ns: string, o: ListOptions): Promise<Obj> {
    const items = (await this.computed!(ns)).filter((x) => this.matches(x, o.labelSelector ?? everything, o.fieldSelector ?? everything));
    return { kind: `${this.def.kind}List`, apiVersion: apiVersionOf(this.def), metadata: {}, items };
  }

  /** A watch of the collection under ns (./watch.ts); resolves to the stop function. */
  watch(ns: string, rv: string, label: Selector, field: Selector, sink: WatchSink): Promise<() => void> {
    return watchCollection(this, ns, rv, label, field, sink);
  }

  /** What admission sees of a write. */
  private attributes(operation: Operation, subresource: string, ns: string, object: Obj | undefined, oldObject: Obj | undefined, o: WriteOptions): Attributes {
    const name = String((object ?? oldObject)?.metadata?.name ?? "");
    return { operation, def: this.def, subresource, namespace: this.def.namespaced ? ns : "", name, object, oldObject, dryRun: !!o.dryRun, user: o.user, warnings: o.warnings };
  }

  // ---- writes
  async create(ns: string, body: Obj, o: WriteOptions = {}): Promise<Obj> {
    const obj = this.checkBody(body, ns, o.fields);
    // the name is generated before defaults (a Namespace's name label) and admission see the object
    if (!obj.metadata.name && obj.metadata.generateName) obj.metadata.name = `${obj.metadata.generateName}${randomSuffix()}`;
    const asWritten = checkAsWritten(this.def, obj, o.serverOwned);
    // upstream defaults every object it decodes, before admission and the strategy's hooks see it
    applyKindDefaults(this.def, obj);
    // the writer owns what it sent (and its defaults), not what admission adds: upstream's field manager runs first
    const managedFields = o.fieldManager === undefined ? undefined : this.track(undefined, obj, o.fieldManager, "").metadata.managedFields;
    const attrs = this.attributes("CREATE", "", ns, obj, undefined, o);
    await this.admission?.admit(attrs);
    // a webhook's patch may have replaced metadata, or put anything anywhere
    if (attrs.patched) this.checkBody(obj, ns);
    const m = obj.metadata;
    m.uid = randomUUID();
    m.creationTimestamp = now();
    for (const f of ["deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion", "selfLink"]) delete m[f];
    if (this.def.generation) m.generation = 1;
    else delete m.generation;
    if (this.def.subresources?.includes("status") && this.def.kind !== "Node") obj.status = {};
    this.def.strategy?.prepareForCreate?.(obj, o.user);
    if (o.large) await breather();
    validateWrite(this.def, obj, undefined, "", o.serverOwned, asWritten);
    if (o.user) await this.checkCaller(obj, undefined, o.user);
    await this.admission?.validate(attrs);
    if (o.large) await breather();
    if (managedFields !== undefined) obj.metadata.managedFields = managedFields;
    const release = this.admit && (await this.admit(obj, undefined, !!o.dryRun));
    if (!obj.metadata.managedFields?.length) delete obj.metadata.managedFields;
    if (o.dryRun) {
      // Everything but the write: a name that is taken fails as the real request would.
      if (await this.store.get(this.key(ns, m.name)).catch(() => null)) throw alreadyExists(this.q, m.name);
      return obj;
    }
    try {
      const kv = await this.store.create(this.key(ns, m.name), await this.storedValue(obj));
      await this.settle(kv.modRevision);
      m.resourceVersion = String(kv.modRevision);
      rememberWritten(obj);
      return obj;
    } catch (e) { return this.fail(e, m.name); } finally { release?.(); }
  }

  /** PUT: compare-and-swap on the body's resourceVersion (unconditional when it has none, or "0"). */
  async update(ns: string, name: string, body: Obj, sub: UpdateTarget, o: WriteOptions = {}): Promise<{ obj: Obj; created: boolean }> {
    const obj = this.checkBody(body, ns, o.fields);
    if (obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    const rv = precondition(obj.metadata.resourceVersion);
    for (let attempt = 0; ; attempt++) {
      let cur: KeyValue | null;
      try { cur = await this.store.get(this.key(ns, name)); } catch (e) { this.fail(e, name); }
      if (!cur) {
        if (this.def.createOnUpdate && !sub) return { obj: await this.create(ns, obj, o), created: true };
        throw notFound(this.q, name);
      }
      const old = await this.current(this.decode(cur));
      if (rv && rv !== old.metadata.resourceVersion) {
        throw conflict(this.q, name, "the object has been modified; please apply your changes to the latest version and try again");
      }
      try {
        return { obj: await this.writeUpdate(ns, old, cur.modRevision, rv ? obj : structuredClone(obj), sub, o, cur.stale), created: false };
      } catch (e) {
        // An unconditional update (no resourceVersion) that lost a race to another writer tries again.
        if (!rv && lostRace(e, attempt)) continue;
        throw e;
      }
    }
  }

  /**
   * Read-modify-write with retries on conflict; `mutate` gets a copy of the current object. With
   * `cachedFirst` the first try starts from the watch cache's copy, as upstream's cacher suggests its
   * object to storage: a stale copy loses the compare-and-swap and the retry reads the store. Only for
   * writes without a client's precondition, which a stale copy would answer with a wrong 409.
   */
  async guaranteedUpdate(ns: string, name: string, mutate: (cur: Obj) => Obj | Promise<Obj>, o: WriteOptions & { sub?: UpdateTarget; cachedFirst?: boolean } = {}): Promise<Obj> {
    for (let attempt = 0; ; attempt++) {
      let cur: KeyValue | null | undefined;
      let old: Obj;
      const cached = attempt === 0 && o.cachedFirst ? this.watchCache()?.get(this.key(ns, name)) : undefined;
      if (cached) {
        cur = cached.kv;
        old = await this.current(this.decodeEntry(cached));
      } else {
        try { cur = await this.store.get(this.key(ns, name)); } catch (e) { this.fail(e, name); }
        if (!cur) throw notFound(this.q, name);
        old = await this.current(this.decode(cur));
      }
      const next = await mutate(structuredClone(old));
      // a binding is composed by the server from the stored object: nothing of the client's to type-check
      const checked = o.sub === "binding" ? next : this.checkBody(next, ns, o.fields);
      // A resourceVersion the mutation did not take from the current object is the client's precondition.
      const want = precondition(checked.metadata.resourceVersion);
      if (want && want !== old.metadata.resourceVersion) {
        throw conflict(this.q, name, "the object has been modified; please apply your changes to the latest version and try again");
      }
      try {
        return await this.writeUpdate(ns, old, cur.modRevision, checked, o.sub ?? "", o, cur.stale);
      } catch (e) {
        // Another writer got there between the read and the write: mutate the newer object. A client's own
        // resourceVersion then no longer matches it, and the check above answers 409.
        if (lostRace(e, attempt)) continue;
        throw e;
      }
    }
  }

  /** Field ownership of a non-apply write (operation Update), as upstream's field manager keeps it. */
  private track(old: Obj | undefined, next: Obj, manager: string, sub: string): Obj {
    const hasStatus = this.def.subresources?.includes("status");
    const ignoreFields = sub === "status" || sub === "approval" ? Object.keys(next).filter((k) => !["status", "apiVersion", "kind", "metadata"].includes(k)) : hasStatus ? ["status"] : [];
    return updateManagedFields(this.def.kind, apiVersionOf(this.def), old, next, manager, now(), { ignoreFields, schema: this.def.custom?.schema });
  }

  /** Fields an apply to the main resource does not own: status, for types with a status subresource. */
  get applyIgnoredFields(): string[] {
    return this.def.subresources?.includes("status") ? ["status"] : [];
  }

  private async writeUpdate(ns: string, old: Obj, oldRev: number, obj: Obj, sub: UpdateTarget, o: WriteOptions, stale = false): Promise<Obj> {
    const name = old.metadata.name;
    let next: Obj;
    if (sub === "status" || sub === "approval") next = { ...structuredClone(old), status: obj.status };
    else if (sub === "finalize") next = { ...structuredClone(old), spec: { ...old.spec, finalizers: obj.spec?.finalizers ?? [] } };
    // a binding's write is composed by the server from the stored pod: spec and status both
    else if (sub === "binding") next = obj;
    else {
      next = obj;
      if (this.def.subresources?.includes("status")) next.status = old.status;
    }
    if (sub === "status" || !sub) this.carryStatusAnnotations(sub ? obj : old, next);
    // upstream's binding writes through storage alone: no defaulting, validation or field tracking
    const attrs = this.attributes("UPDATE", sub, ns, next, old, o);
    const asWritten = sub ? [] : checkAsWritten(this.def, next, o.serverOwned);
    if (sub !== "binding") {
      applyKindDefaults(this.def, next);
      await this.admission?.admit(attrs);
      if (attrs.patched) this.checkBody(next, ns);
    }
    if (!sub) this.def.strategy?.prepareForUpdate?.(next, old);
    else if (sub === "status" || sub === "approval") this.def.strategy?.prepareForSubresourceUpdate?.(sub, next, old);
    // Server-owned metadata never changes through an update.
    const m = next.metadata, om = old.metadata;
    for (const f of ["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "namespace"]) {
      if (om[f] === undefined) delete m[f];
      else m[f] = om[f];
    }
    m.generateName = om.generateName;
    if (m.generateName === undefined) delete m.generateName;
    if (this.def.generation) {
      const apart = !!this.def.subresources?.includes("status");
      m.generation = Bun.deepEquals(specPart(next, apart), specPart(old, apart)) ? om.generation : (om.generation ?? 0) + 1;
    }
    delete m.resourceVersion;
    if (o.large) await breather();
    if (o.fieldManager !== undefined) m.managedFields = this.track(old, next, o.fieldManager, sub).metadata.managedFields;
    if (!m.managedFields?.length) delete m.managedFields;
    if (o.large) await breather();
    validateWrite(this.def, next, old, sub, o.serverOwned, asWritten);
    if (!sub && o.user) await this.checkCaller(next, old, o.user);
    if (sub !== "binding") await this.admission?.validate(attrs);
    const release = !sub && this.admit ? await this.admit(next, old, !!o.dryRun) : undefined;
    try {
      const key = this.key(ns, name);
      // A no-op update writes nothing and keeps the resourceVersion (field order does not count as a change),
      // unless the stored value is under an encryption key that no longer writes.
      if (!stale && Bun.deepEquals(this.storedForm(next), this.storedForm(old))) return old;
      if (o.large) await breather();
      const data = await this.storedValue(next);
      // Removing the last finalizer of an object being deleted removes the object, unless a graceful deletion
      // is still under way (a pod stopping on its node: upstream's ShouldDeleteDuringUpdate).
      if (m.deletionTimestamp && !om.deletionGracePeriodSeconds && !m.finalizers?.length && !this.def.strategy?.pendingFinalizers?.(next)) {
        if (o.dryRun) return next;
        try { await this.settle((await this.store.delete(key, oldRev)).modRevision); } catch (e) { this.fail(e, name); }
        next.metadata.resourceVersion = om.resourceVersion;
        this.observer?.deleted(this, next);
        return next;
      }
      if (o.dryRun) { m.resourceVersion = om.resourceVersion; return next; }
      try {
        const kv = await this.store.update(key, data, oldRev);
        await this.settle(kv.modRevision);
        m.resourceVersion = String(kv.modRevision);
        return next;
      } catch (e) { return this.fail(e, name); }
    } finally {
      release?.();
    }
  }

  /**
   * Two-phase delete: an object with finalizers (or a graceful period) gets deletionTimestamp and stays;
   * otherwise it is removed. Returns the object and whether it is gone.
   */
  async delete(ns: string, name: string, o: DeleteOptions = {}): Promise<{ obj: Obj; deleted: boolean }> {
    for (let attempt = 0; ; attempt++) {
      let cur: KeyValue | null;
      try { cur = await this.store.get(this.key(ns, name)); } catch (e) { this.fail(e, name); }
      if (!cur) throw notFound(this.q, name);
      const obj = await this.current(this.decode(cur));
      const m = obj.metadata;
      checkPreconditions(this.q, obj, o.preconditions);
      this.def.strategy?.validateDelete?.(obj);
      if (this.admission) {
        const attrs = this.attributes("DELETE", "", ns, undefined, obj, o);
        await this.admission.admit(attrs);
        await this.admission.validate(attrs);
      }
      const { finalizers, graceful, pending } = deletionPlan(this.def, obj, o);
      try {
        if (pending) {
          const changed = !m.deletionTimestamp || JSON.stringify(finalizers) !== JSON.stringify(m.finalizers ?? []);
          if (!changed) return { obj, deleted: false };
          const next = structuredClone(obj);
          next.metadata.deletionTimestamp ??= now();
          if (graceful) next.metadata.deletionGracePeriodSeconds = o.gracePeriodSeconds ?? obj.spec?.terminationGracePeriodSeconds ?? 30;
          if (finalizers.length) next.metadata.finalizers = finalizers;
          this.def.strategy?.onDeleting?.(next);
          if (o.dryRun) return { obj: next, deleted: false };
          const kv = await this.store.update(this.key(ns, name), await this.storedValue(next), cur.modRevision);
          await this.settle(kv.modRevision);
          next.metadata.resourceVersion = String(kv.modRevision);
          if (finalizers.includes("orphan") || finalizers.includes("foregroundDeletion")) this.observer?.deleting(this, next);
          return { obj: next, deleted: false };
        }
        if (o.dryRun) return { obj, deleted: true };
        await this.settle((await this.store.delete(this.key(ns, name), cur.modRevision)).modRevision);
        this.observer?.deleted(this, obj);
        return { obj, deleted: true };
      } catch (e) {
        const err = fromStoreError(e, this.q, name);
        if (lostRace(err, attempt)) continue;
        throw err;
      }
    }
  }

  /** DELETE of a collection: each selected object deleted as by delete() (./deletecollection.ts). */
  deleteCollection(ns: string, lo: ListOptions, o: DeleteOptions): Promise<Obj> {
    return deleteCollection(this, ns, lo, o, this.deleteWorkers);
  }

  /** Body checks shared by create and update (./body.ts); `def`: a kind a subresource takes instead. */
  checkBody(body: unknown, ns: string, fields?: FieldCheck, def: ResourceDef = this.def): Obj {
    return checkBody(def, body, ns, fields);
  }

  /** Annotations of this hub that carry another version's status (pkg/convert rows' statusAnnotations). */
  private statusAnnotations?: string[];

  /** Those annotations go with the status: taken from `from` (the status write, or the stored object). */
  private carryStatusAnnotations(from: Obj, next: Obj) {
    this.statusAnnotations ??= this.def.conversion ? [] : rowsForHub(this.def.group, this.def.version, this.def.kind).flatMap((r) => r.statusAnnotations ?? []);
    if (!this.statusAnnotations.length) return;
    const annotations: Record<string, string> = { ...(next.metadata.annotations ?? {}) };
    for (const k of this.statusAnnotations) {
      const v = from.metadata?.annotations?.[k];
      if (v === undefined) delete annotations[k];
      else annotations[k] = v;
    }
    if (Object.keys(annotations).length) next.metadata.annotations = annotations;
    else delete next.metadata.annotations;
  }

  /** The caller checks of the kind (RBAC's escalation checks), made at the hub for other versions. */
  private async checkCaller(obj: Obj, old: Obj | undefined, user: UserInfo) {
    const c = this.def.conversion;
    if (c && this.hubStore) return this.hubStore.callerCheck?.(c.toHub(obj), old && c.toHub(old), user);
    await this.callerCheck?.(obj, old, user);
  }
}
