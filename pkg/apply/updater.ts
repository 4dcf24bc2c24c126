// Ownership bookkeeping of one write, as upstream's merge.Updater does it: an Update takes
// the fields it changed from everyone else; an Apply merges the config, owns exactly the
// config's fields, prunes what it owned before and nobody owns now, and fails on changed
// fields that other managers own unless forced. (Objects are not converted between
// apiVersions here: every manager's set is read against the object as it is.)
import { type Comparison, compareObjects, excludeFields } from "./compare.ts";
import { FieldSet } from "./fieldset.ts";
import type { VersionedSet } from "./managers.ts";
import { mergeValue } from "./merge.ts";
import { reconcileWithSchema } from "./reconcile.ts";
import { removeItems } from "./remove.ts";
import type { Atom } from "./schema.ts";
import { ensureNamedFieldsAreMembers, toFieldSet } from "./tofieldset.ts";
import { deepEqual, dropNulls } from "./value.ts";

export type Fields = Map<string, VersionedSet>;

export interface Ctx {
  atom: Atom;
  /** Fields whose ownership this write does not track (e.g. status on the main resource). */
  ignored?: FieldSet;
}

/**
 * Takes changed fields away from every manager but `workflow`; with `force` false, returns
 * them as conflicts instead. Fields the write removed leave everyone's sets.
 */
function update(ctx: Ctx, live: unknown, next: unknown, managers: Fields, workflow: string, force: boolean):
  { compare: Comparison; conflicts?: Fields } {
  const compare = excludeFields(compareObjects(live, next, ctx.atom), ctx.ignored);
  const changed = compare.modified.union(compare.added);
  const conflicts: Fields = new Map();
  for (const [key, vs] of managers) {
    if (key === workflow) continue;
    const clash = vs.set.intersection(changed);
    if (!clash.isEmpty()) conflicts.set(key, { ...vs, set: clash });
  }
  if (!force && conflicts.size > 0) return { compare, conflicts };
  for (const [key, vs] of managers) {
    if (key === workflow) continue;
    let set = vs.set;
    const clash = conflicts.get(key);
    if (clash) set = set.difference(clash.set);
    if (!compare.removed.isEmpty()) set = set.difference(compare.removed);
    if (set !== vs.set) managers.set(key, { ...vs, set });
  }
  for (const [key, vs] of managers) if (vs.set.isEmpty()) managers.delete(key);
  return { compare };
}

/** Rule 9: sets recorded under an older schema are read with the current one. */
function reconcileAll(ctx: Ctx, managers: Fields): void {
  for (const [key, vs] of managers) {
    const set = reconcileWithSchema(vs.set, ctx.atom);
    if (set !== vs.set) managers.set(key, { ...vs, set });
  }
}

/** A non-apply write: `manager` owns what it added or modified. Mutates `managers`. */
export function updateFields(ctx: Ctx, live: unknown, next: unknown, apiVersion: string, managers: Fields, manager: string): void {
  reconcileAll(ctx, managers);
  const { compare } = update(ctx, live, next, managers, manager, true);
  const prev = managers.get(manager)?.set ?? new FieldSet();
  let set = prev.union(compare.modified).union(compare.added).difference(compare.removed);
  if (ctx.ignored) set = set.recursiveDifference(ctx.ignored);
  if (set.isEmpty()) managers.delete(manager);
  else managers.set(manager, { set, apiVersion, applied: false });
}

export type ApplyOutcome = { object: unknown; changed: boolean } | { conflicts: Fields };

/** An apply of `config` by `manager` (an Apply identifier). Mutates `managers` on success. */
export function applyFields(ctx: Ctx, live: unknown, config: unknown, apiVersion: string, managers: Fields,
  manager: string, force: boolean): ApplyOutcome {
  reconcileAll(ctx, managers);
  const merged = mergeValue(live, config, ctx.atom);
  const lastSet = managers.get(manager);
  let set = toFieldSet(config, ctx.atom);
  if (ctx.ignored) set = set.recursiveDifference(ctx.ignored);
  const proposed: Fields = new Map(managers);
  proposed.set(manager, { set, apiVersion, applied: true });
  const pruned = prune(ctx, merged, proposed, lastSet?.set);
  const result = update(ctx, live, pruned, proposed, manager, force);
  if (result.conflicts) return { conflicts: result.conflicts };
  managers.clear();
  for (const [k, v] of proposed) managers.set(k, v);
  // Nulls mean "unset" once the object is typed again; they matter above only for conflicts.
  const object = dropNulls(pruned);
  return { object, changed: !deepEqual(object, live) };
}

/**
 * Removes what the applier owned last time and nobody owns now, keeping fields below it
 * that others own and values nobody ever applied (defaults).
 */
function prune(ctx: Ctx, merged: unknown, managers: Fields, last: FieldSet | undefined): unknown {
  if (!last || last.isEmpty()) return merged;
  let owned = new FieldSet();
  for (const vs of managers.values()) owned = owned.union(vs.set);
  // Everything applied last time is still owned (a re-apply, say): nothing to remove.
  if (last.difference(owned).isEmpty()) return merged;
  const named = (s: FieldSet) => ensureNamedFieldsAreMembers(s, ctx.atom);
  const lastNamed = named(last);
  const mergedSet = named(toFieldSet(merged, ctx.atom));
  const firstCut = removeItems(merged, lastNamed, ctx.atom);
  // Put back whatever someone still owns.
  const unowned = mergedSet.difference(named(toFieldSet(firstCut, ctx.atom)).union(named(owned)));
  const ownedKept = removeItems(merged, unowned, ctx.atom);
  // Only what this applier had applied may go.
  const gone = mergedSet.difference(named(toFieldSet(ownedKept, ctx.atom))).intersection(lastNamed);
  return removeItems(merged, gone, ctx.atom);
}
