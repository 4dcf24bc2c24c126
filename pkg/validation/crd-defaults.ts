// The `default`s of a CustomResourceDefinition's schemas, checked as upstream checks them before storing
// the definition: where a default may not appear at all (the resource's own apiVersion, kind and
// metadata; additionalProperties under an embedded resource's metadata), that each default is already
// pruned (no field its schema would drop) and that it validates against its own schema.
import { validateAgainstSchema } from "../crd/validate.ts";
import { prune } from "../crd/structural.ts";
import type { Obj } from "../registry/types.ts";
import { Errs, Printed } from "./field.ts";
import { isMap } from "./rules.ts";

const META_FIELDS = ["metadata", "apiVersion", "kind"];
const UNKNOWN_FIELDS = "must not have unknown fields";

/** A JSON value as Go's %#v prints it once decoded into interface{} (the value of an Invalid cause). */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return "interface {}(nil)";
  if (Array.isArray(v)) return `[]interface {}{${v.map(goValue).join(", ")}}`;
  if (isMap(v)) return `map[string]interface {}{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${goValue(v[k])}`).join(", ")}}`;
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}

/** Whether a schema anywhere in the definition's versions sets a default. */
export function hasDefaults(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasDefaults);
  if (!isMap(v)) return false;
  return "default" in v || Object.values(v).some(hasDefaults);
}

/** Defaults where upstream forbids them: `reason` says where, from the first forbidding ancestor on. */
function forbiddenPlaces(e: Errs, s: Obj, path: string, at: { root: boolean; meta: boolean; reason?: string }) {
  if (s.default !== undefined && at.reason) e.forbidden(`${path}.default`, `must not be set ${at.reason}`);
  const props = isMap(s.properties) ? s.properties : {};
  for (const [k, ps] of Object.entries(props)) {
    if (!isMap(ps)) continue;
    const metaField = (at.root || s["x-kubernetes-embedded-resource"] === true) && META_FIELDS.includes(k);
    const reason = metaField && at.root ? `in top-level ${k}` : at.reason;
    forbiddenPlaces(e, ps, `${path}.properties[${k}]`, { root: false, meta: at.meta || metaField, reason });
  }
  if (isMap(s.additionalProperties)) {
    const reason = at.meta ? "inside additionalProperties applying to object metadata" : at.reason;
    forbiddenPlaces(e, s.additionalProperties, `${path}.additionalProperties`, { ...at, root: false, reason });
  }
  if (isMap(s.items)) forbiddenPlaces(e, s.items, `${path}.items`, { ...at, root: false });
}

/** Each default against its schema; additionalProperties are not followed (defaults are not applied there). */
function values(e: Errs, s: Obj, path: string, at: { embedded: boolean; meta: boolean; pruned: boolean }) {
  const embedded = at.embedded || s["x-kubernetes-embedded-resource"] === true;
  const meta = at.meta && !embedded;
  if (s.default !== undefined) {
    const here = `${path}.default`;
    let ok = true;
    if (!meta && at.pruned) {
      const copy = structuredClone(s.default);
      prune(copy, s, "", embedded);
      if (JSON.stringify(copy) !== JSON.stringify(s.default)) {
        e.invalid(here, new Printed(goValue(s.default)), UNKNOWN_FIELDS);
        ok = false;
      }
    }
    if (ok) {
      for (const c of validateAgainstSchema(s.default as Obj, s)) {
        e.causes.push({ ...c, field: !c.field ? here : c.field.startsWith("[") ? `${here}${c.field}` : `${here}.${c.field}` });
      }
    }
  }
  if (isMap(s.items)) values(e, s.items, `${path}.items`, { embedded: false, meta, pruned: at.pruned });
  for (const [k, ps] of Object.entries(isMap(s.properties) ? s.properties : {})) {
    if (isMap(ps)) values(e, ps, `${path}.properties[${k}]`, { embedded: false, meta: meta || (embedded && META_FIELDS.includes(k)), pruned: at.pruned });
  }
}

const schemasOf = (spec: Obj): [number, Obj][] =>
  (Array.isArray(spec?.versions) ? spec.versions : []).map((v: Obj, i: number) => [i, v?.schema?.openAPIV3Schema] as [number, Obj]).filter(([, s]) => isMap(s));

/** Whether a stored definition already holds defaults its schema would prune (then they may stay). */
function hasUnprunedDefaults(spec: Obj): boolean {
  return schemasOf(spec).some(([, s]) => {
    const e = new Errs();
    values(e, s, "", { embedded: true, meta: false, pruned: true });
    return e.causes.some((c) => c.message.endsWith(`: ${UNKNOWN_FIELDS}`));
  });
}

/** Where defaults sit. Runs on every schema, as upstream's schema walk does. */
export function defaultPlaces(e: Errs, spec: Obj) {
  for (const [i, s] of schemasOf(spec)) forbiddenPlaces(e, s, `spec.versions[${i}].schema.openAPIV3Schema`, { root: true, meta: false });
  if (hasDefaults(spec.versions) && spec.preserveUnknownFields === true) {
    e.invalid("spec.preserveUnknownFields", true, "must be false in order to use defaults in the schema");
  }
}

/** The defaults' values; upstream checks them only on schemas that are otherwise structural. */
export function defaultValues(e: Errs, spec: Obj, old?: Obj) {
  const pruned = !old || !hasUnprunedDefaults(old.spec ?? {});
  for (const [i, s] of schemasOf(spec)) values(e, s, `spec.versions[${i}].schema.openAPIV3Schema`, { embedded: true, meta: false, pruned });
}
