// Object metadata validation, with upstream's rules and messages.
import type { FieldCause, Obj, ResourceDef } from "./types.ts";
import { annotationKey, labelValue } from "../validation/labels.ts";
import { nameErrors, qualifiedName } from "../validation/names.ts";
import { isMap } from "../validation/rules.ts";


/** Validates metadata common to every kind; returns 422 causes. */
export function validateMeta(def: ResourceDef, obj: Obj): FieldCause[] {
  const causes: FieldCause[] = [];
  const m = obj.metadata;
  const bad = (field: string, value: unknown, message: string) =>
    causes.push({ field, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(value)}: ${message}` });
  if (!m.name) causes.push({ field: "metadata.name", reason: "FieldValueRequired", message: "Required value: name or generateName is required" });
  else if (typeof m.name !== "string") bad("metadata.name", m.name, "must be a string");
  else for (const e of nameErrors(m.name, def.nameRule)) bad("metadata.name", m.name, e);
  if (m.labels !== undefined && m.labels !== null) {
    if (!isMap(m.labels)) bad("metadata.labels", m.labels, "must be a map of strings");
    else for (const [k, v] of Object.entries(m.labels)) {
      for (const e of qualifiedName(k)) bad("metadata.labels", k, e);
      for (const e of labelValue(v)) bad("metadata.labels", v, e);
    }
  }
  if (m.annotations !== undefined && m.annotations !== null) {
    if (!isMap(m.annotations)) bad("metadata.annotations", m.annotations, "must be a map of strings");
    else {
      let size = 0;
      for (const [k, v] of Object.entries(m.annotations)) {
        for (const e of annotationKey(k)) bad("metadata.annotations", k, e);
        if (typeof v !== "string") bad(`metadata.annotations[${k}]`, v, "must be a string");
        size += k.length + String(v).length;
      }
      if (size > 256 * 1024) causes.push({ field: "metadata.annotations", reason: "FieldValueTooLong", message: "Too long: must have at most 262144 bytes" });
    }
  }
  if (m.finalizers !== undefined && m.finalizers !== null) {
    if (!Array.isArray(m.finalizers) || m.finalizers.some((f: unknown) => typeof f !== "string")) bad("metadata.finalizers", m.finalizers, "must be a list of strings");
    else for (const f of m.finalizers) {
      // apiextensions' kinds and custom resources are validated by apimachinery's rules, which know no standard names
      if (def.custom || def.group === "apiextensions.k8s.io") for (const e of qualifiedName(f)) bad("metadata.finalizers", f, e);
      else if (!f.includes("/") && !["kubernetes", "orphan", "foregroundDeletion"].includes(f)) {
        bad("metadata.finalizers", f, "name is neither a standard finalizer name nor is it fully qualified");
      }
    }
  }
  if (m.ownerReferences !== undefined && m.ownerReferences !== null && !Array.isArray(m.ownerReferences)) bad("metadata.ownerReferences", m.ownerReferences, "must be a list");
  return causes;
}
