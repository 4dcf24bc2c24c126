// Server-side apply and field ownership (spec §9.1), as a pure engine for the write handlers.
// The steps follow upstream's field manager: managedFields are decoded (or reset, rule 11),
// objects never tracked before are left alone by updates and handed to "before-first-apply"
// by an apply, the write's ownership is computed (updater.ts), server-owned metadata is
// stripped from the writer's set, its entry is stamped with `now` when it changed, old
// Update entries are capped, and the entries are written back sorted. Applies by "kubectl"
// also honour the client-side last-applied annotation (lastapplied.ts).
import { type Conflict, conflictsOf } from "./conflict.ts";
import { FieldSet } from "./fieldset.ts";
import { KUBECTL, allowedByLastApplied, syncLastApplied, withoutAllowed } from "./lastapplied.ts";
import {
  type Managed, copyManaged, capUpdateManagers, decodeManagedFields, emptyManaged, encodeManagedFields,
  isResetManagedFields, managerKey, sameFields,
} from "./managers.ts";
import { createdFields } from "./created.ts";
import { fieldPE } from "./pathelement.ts";
import { rootAtom } from "./schema.ts";
import { toFieldSet } from "./tofieldset.ts";
import { type Ctx, type Fields, applyFields, updateFields } from "./updater.ts";
import { ApplyError, type Obj, cloneJSON, deepEqual } from "./value.ts";
import { isMap } from "../util/ismap.ts";

export { ApplyError, type Obj } from "./value.ts";
export { type Conflict, conflictCauses, conflictMessage } from "./conflict.ts";
export { type ApplyTarget, validateApplyConfig } from "./validate.ts";
export { isResetManagedFields } from "./managers.ts";

export interface FieldOptions {
  /**
   * Dotted field paths this write does not own: `["status"]` for the main resource of a kind
   * with a status subresource, `["spec"]` (and so on) for writes to its status.
   */
  ignoreFields?: string[];
  /** A custom resource's openAPIV3Schema, so its list/map markers apply; else all lists are atomic. */
  schema?: object;
}

// Fields the server owns, dropped from every writer's set (upstream's stripMeta; not recursive).
const STRIP = FieldSet.of(
  ...[["apiVersion"], ["kind"], ["metadata"], ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName",
    "generation", "managedFields", "resourceVersion"].map((f) => ["metadata", f])].map((p) => p.map(fieldPE)),
);
const CURRENT_OPERATION = "current-operation";
const BEFORE_FIRST_APPLY = "before-first-apply";

function ctxOf(kind: string, apiVersion: string, opts: FieldOptions): Ctx {
  const ignored = opts.ignoreFields?.length
    ? FieldSet.of(...opts.ignoreFields.map((p) => p.split(".").map(fieldPE)))
    : undefined;
  return { atom: rootAtom(kind, apiVersion, opts.schema), ignored };
}

const managedFieldsOf = (o: unknown): unknown =>
  isMap(o) && isMap(o.metadata) && Object.hasOwn(o.metadata, "managedFields") ? o.metadata.managedFields : undefined;

/**
 * `o` without metadata.managedFields: a copy of the top level and metadata only (the engine
 * never mutates its inputs, and only ever sets managedFields on this copy).
 */
function withoutManagedFields(o: Obj): Obj {
  if (!isMap(o.metadata)) return { ...o };
  const { managedFields: _, ...metadata } = o.metadata;
  return { ...o, metadata };
}

function setManagedFields(o: Obj, entries: Obj[] | undefined): void {
  if (!isMap(o.metadata)) {
    if (!entries) return;
    o.metadata = {};
  }
  const meta = o.metadata as Obj;
  if (entries) meta.managedFields = entries;
  else delete meta.managedFields;
}

function tryDecode(list: unknown): Managed | undefined {
  try {
    return decodeManagedFields(list);
  } catch {
    return undefined;
  }
}

function stripMeta(fields: Fields, key: string): void {
  const vs = fields.get(key);
  if (!vs) return;
  const set = vs.set.difference(STRIP);
  if (set.isEmpty()) fields.delete(key);
  else fields.set(key, { ...vs, set });
}

const SYSTEM_META = ["creationTimestamp", "uid", "resourceVersion", "generation", "selfLink", "deletionTimestamp"];

/**
 * Configs made by `kubectl create --dry-run -o yaml` carry `creationTimestamp: null`; upstream
 * restores such system fields from the live object afterwards, here they are not merged.
 */
function withoutNullSystemMeta(config: Obj): Obj {
  const meta = config.metadata;
  if (!isMap(meta) || !SYSTEM_META.some((f) => Object.hasOwn(meta, f) && meta[f] === null)) return config;
  const copy: Obj = { ...meta };
  for (const f of SYSTEM_META) if (copy[f] === null) delete copy[f];
  return { ...config, metadata: copy };
}

/** Records a non-apply write by `manager` into `managed` (what upstream's chain does for Update). */
function trackUpdate(ctx: Ctx, live: Obj, next: Obj, apiVersion: string, managed: Managed, manager: string, now: string): void {
  const key = managerKey(manager || "unknown", "Update", apiVersion);
  const former = managed.fields.get(key);
  updateFields(ctx, live, next, apiVersion, managed.fields, CURRENT_OPERATION);
  stripMeta(managed.fields, CURRENT_OPERATION);
  const taken = managed.fields.get(CURRENT_OPERATION);
  if (taken) {
    managed.fields.delete(CURRENT_OPERATION);
    const previous = managed.fields.get(key);
    const set = previous ? taken.set.union(previous.set) : taken.set;
    managed.fields.set(key, { set, apiVersion, applied: false });
    if (!former || !set.equals(former.set)) managed.times.set(key, now);
  }
  capUpdateManagers(managed);
}

/**
 * managedFields for a POST, PUT or non-apply PATCH (operation Update): `manager` takes the
 * fields the write added or changed, from whoever owned them. Returns a copy of `next`.
 * `live` is undefined for a create. The managedFields `next` carries are used when valid
 * and non-empty (else live's); a list holding one empty entry resets them first (rule 11).
 */
export function updateManagedFields(kind: string, apiVersion: string, live: Obj | undefined, next: Obj, manager: string,
  now: string, opts: FieldOptions = {}): Obj {
  const out = withoutManagedFields(next);
  const requested = managedFieldsOf(next);
  if (live === undefined && requested === undefined) return trackCreate(kind, apiVersion, out, manager, now, opts);
  const reset = isResetManagedFields(requested);
  let managed = reset ? emptyManaged() : tryDecode(requested);
  if (!managed || managed.fields.size === 0) managed = (!reset && live && tryDecode(managedFieldsOf(live))) || emptyManaged();
  // Upstream starts tracking an existing object only once it is applied to (rule 11's reset
  // still hands the requester what it changed).
  if (managed.fields.size === 0 && live !== undefined && !reset) return out;
  try {
    trackUpdate(ctxOf(kind, apiVersion, opts), live ? withoutManagedFields(live) : {}, out, apiVersion, managed, manager, now);
  } catch (e) {
    // Like upstream's UpdateNoErrors: an object the engine cannot read is stored untracked.
    if (e instanceof ApplyError) return out;
    throw e;
  }
  setManagedFields(out, encodeManagedFields(managed));
  return out;
}

/** A create with no managedFields of its own: the writer's one entry, its fields by the object's shape. */
function trackCreate(kind: string, apiVersion: string, out: Obj, manager: string, now: string, opts: FieldOptions): Obj {
  const context = `${kind}|${apiVersion}|${opts.ignoreFields?.join(",") ?? ""}`;
  const fieldsV1 = createdFields(context, opts.schema, out, () => {
    const managed = emptyManaged();
    try {
      trackUpdate(ctxOf(kind, apiVersion, opts), {}, out, apiVersion, managed, manager, now);
    } catch (e) {
      // Like upstream's UpdateNoErrors: an object the engine cannot read is stored untracked.
      if (e instanceof ApplyError) return undefined;
      throw e;
    }
    return encodeManagedFields(managed)?.[0]?.fieldsV1 as object | undefined;
  });
  if (fieldsV1) setManagedFields(out, [{ manager: manager || "unknown", operation: "Update", apiVersion, time: now, fieldsType: "FieldsV1", fieldsV1 }]);
  return out;
}

/**
 * Server-side apply of `config` by `manager` (operation Apply). Returns the merged object
 * with its managedFields, or the conflicts that refuse it (answer 409, see conflictMessage).
 * `live` is undefined when the object does not exist: the apply creates it. Throws
 * ApplyError (with a status) for configs that cannot be merged.
 */
export function applyConfig(kind: string, apiVersion: string, live: Obj | undefined, config: Obj, manager: string,
  force: boolean, now: string, opts: FieldOptions = {}): { object: Obj } | { conflicts: Conflict[] } {
  if (!isMap(config)) throw new ApplyError("error decoding YAML: the apply configuration must be an object", 400);
  if (managedFieldsOf(config) !== undefined || (isMap(config.metadata) && Object.hasOwn(config.metadata, "managedFields"))) {
    throw new ApplyError("metadata.managedFields must be nil", 400);
  }
  const ctx = ctxOf(kind, apiVersion, opts);
  let managed: Managed;
  try {
    managed = decodeManagedFields(managedFieldsOf(live));
  } catch (e) {
    throw new ApplyError(`failed to decode managed fields: ${(e as Error).message}`);
  }
  const liveObj = live ? withoutManagedFields(live) : {};
  // Fields of an object never tracked before go to "before-first-apply", so they can conflict.
  if (managed.fields.size === 0 && live !== undefined) trackUpdate(ctx, {}, liveObj, apiVersion, managed, BEFORE_FIRST_APPLY, now);
  const key = managerKey(manager || "unknown", "Apply", apiVersion);
  const former = copyManaged(managed);
  const cfg = withoutNullSystemMeta(config);
  let result = applyFields(ctx, liveObj, cfg, apiVersion, managed.fields, key, force);
  if ("conflicts" in result && manager === KUBECTL) {
    // Upgrading from client-side apply: fields still as last applied do not conflict.
    const allowed = allowedByLastApplied(ctx.atom, liveObj, apiVersion);
    if (allowed) {
      const rest = withoutAllowed(result.conflicts, allowed);
      result = rest.size > 0 ? { conflicts: rest } : applyFields(ctx, liveObj, cfg, apiVersion, managed.fields, key, true);
    }
  }
  if ("conflicts" in result) return { conflicts: conflictsOf(result.conflicts) };
  stripMeta(managed.fields, key);
  if (result.changed || !sameFields(former.fields, managed.fields)) managed.times.set(key, now);
  const entries = encodeManagedFields(managed);
  // Nothing changed, managedFields included: a copy of live, so the caller can skip the write.
  const unchanged = live && !result.changed && deepEqual(entries, managedFieldsOf(live));
  // Otherwise the merged object, built afresh (it shares nothing mutable with the inputs).
  const object = unchanged ? cloneJSON(live) : (result.object as Obj);
  if (!unchanged) setManagedFields(object, entries);
  if (manager === KUBECTL) syncLastApplied(object, config);
  return { object };
}

/**
 * The FieldsV1 tree of the fields `obj` sets, as an apply of it would own them: server-owned
 * metadata (name, uid, resourceVersion, ...) and apiVersion/kind excluded, and the fields in
 * `opts.ignoreFields` (e.g. status) too.
 */
export function fieldsV1Of(kind: string, obj: Obj, opts: FieldOptions = {}): object {
  const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "v1";
  const ctx = ctxOf(kind, apiVersion, opts);
  let set = toFieldSet(withoutManagedFields(obj), ctx.atom);
  if (ctx.ignored) set = set.recursiveDifference(ctx.ignored);
  return set.difference(STRIP).toFieldsV1();
}
