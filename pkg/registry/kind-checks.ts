// The kind's own rules on a write: upstream's defaults and validation, run at the kind's hub version for a
// version served through the conversion table (and the served version's own shape checked as written).
import { invalid } from "../api/status.ts";
import { applyDefaults, defaultsAtAnyVersion } from "../defaults/index.ts";
import { validateAsWritten, validateKind } from "../validation/index.ts";
import type { FieldCause, Obj, ResourceDef, UpdateTarget } from "./types.ts";
import { validateMeta } from "./validation.ts";
import { replaceContents } from "./versions.ts";

/** Upstream's defaults of the kind, applied at its hub unless they hold at every version (in place: callers hold `obj`). */
export function applyKindDefaults(def: ResourceDef, obj: Obj) {
  const c = def.conversion;
  if (!c) return applyDefaults(def.group, def.kind, obj);
  if (defaultsAtAnyVersion(c.hub.group, c.hub.kind)) return applyDefaults(c.hub.group, c.hub.kind, obj);
  const hub = c.toHub(obj);
  applyDefaults(c.hub.group, c.hub.kind, hub);
  replaceContents(obj, c.fromHub(hub));
}

/** The checks of a served version's own shape, made before the defaults' trip through the hub merges it away. */
export function checkAsWritten(def: ResourceDef, obj: Obj, serverOwned = false): FieldCause[] {
  return def.conversion && !serverOwned ? validateAsWritten(def.group, def.version, def.kind, obj) : [];
}

/** Metadata rules, then the strategy's and the kind's validation: one 422 naming every cause. */
export function validateWrite(def: ResourceDef, obj: Obj, old?: Obj, sub?: UpdateTarget, serverOwned = false, asWritten: FieldCause[] = []) {
  const causes: FieldCause[] = validateMeta(def, obj);
  if (old?.metadata.deletionTimestamp) {
    const added = (obj.metadata.finalizers ?? []).filter((f: string) => !(old.metadata.finalizers ?? []).includes(f));
    if (added.length) {
      causes.push({ field: "metadata.finalizers", reason: "FieldValueForbidden", message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f: string) => JSON.stringify(f)).join(", ")}}` });
    }
  }
  if (old) {
    for (const f of ["name", "uid"]) {
      if (obj.metadata[f] !== old.metadata[f]) causes.push({ field: `metadata.${f}`, message: "Invalid value: field is immutable", reason: "FieldValueInvalid" });
    }
  }
  causes.push(...(def.strategy?.validate?.(obj, old, sub) ?? []));
  if (!serverOwned) {
    const c = def.conversion;
    if (c) causes.push(...validateKind(c.hub.group, c.hub.kind, c.toHub(obj), old && c.toHub(old), def.version, obj));
    else causes.push(...validateKind(def.group, def.kind, obj, old, def.version));
    causes.push(...asWritten);
  }
  if (causes.length) throw invalid({ group: def.group, resource: def.plural, kind: def.kind }, String(obj.metadata.name ?? ""), causes);
}
