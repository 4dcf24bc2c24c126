// The structural schema rules apiextensions.k8s.io/v1 demands of a CRD version's openAPIV3Schema, with
// upstream's field paths (`...openAPIV3Schema.properties[spec].type`) and messages.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { isMap } from "./rules.ts";

type Level = "root" | "field" | "item";

const EMPTY_TYPE: Record<Level, string> = {
  root: "must not be empty at the root",
  field: "must not be empty for specified object fields",
  item: "must not be empty for specified array items",
};
const LIST_TYPES = ["atomic", "set", "map"];

/** Checks one schema node and everything under it. */
function node(e: Errs, s: Obj, path: string, level: Level) {
  const type = typeof s.type === "string" ? s.type : "";
  const preserve = s["x-kubernetes-preserve-unknown-fields"];
  const intOrString = s["x-kubernetes-int-or-string"] === true;
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  if (!type && !embedded && !intOrString && preserve !== true) e.required(`${path}.type`, EMPTY_TYPE[level]);
  if (level === "root" && type && type !== "object") e.invalid(`${path}.type`, type, "must be object at the root");
  if (preserve === false) e.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, "must be true or undefined");
  if (intOrString && type) e.invalid(`${path}.type`, type, "must be empty if x-kubernetes-int-or-string is true");
  if (embedded && type !== "object") {
    if (!type) e.required(`${path}.type`, "must be object if x-kubernetes-embedded-resource is true");
    else e.invalid(`${path}.type`, type, "must be object if x-kubernetes-embedded-resource is true");
  }
  const props = isMap(s.properties) ? s.properties : {};
  if (embedded && preserve !== true && !Object.keys(props).length) {
    e.required(`${path}.properties`, "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields");
  }
  if (s.additionalProperties !== undefined && Object.keys(props).length) e.forbidden(`${path}.additionalProperties`, "additionalProperties and properties are mutual exclusive");
  if (s.additionalProperties === false) e.forbidden(`${path}.additionalProperties`, "additionalProperties cannot be set to false");
  if (type === "array" && s.items === undefined) e.required(`${path}.items`, "must be specified");
  const listType = s["x-kubernetes-list-type"];
  if (listType !== undefined && !LIST_TYPES.includes(listType)) e.notSupported(`${path}.x-kubernetes-list-type`, listType, LIST_TYPES);
  const keys = s["x-kubernetes-list-map-keys"];
  if (listType === "map" && !(Array.isArray(keys) && keys.length)) e.required(`${path}.x-kubernetes-list-map-keys`, "must not be empty if x-kubernetes-list-type is map");
  if (listType !== "map" && keys !== undefined) e.forbidden(`${path}.x-kubernetes-list-map-keys`, "must be empty if x-kubernetes-list-type is not map");
  if (level === "root" && isMap(props.metadata)) {
    const extra = Object.keys(props.metadata).filter((k) => k !== "type" && k !== "properties");
    const named = Object.keys(isMap(props.metadata.properties) ? props.metadata.properties : {}).filter((k) => k !== "name" && k !== "generateName");
    if (extra.length || named.length) e.forbidden(`${path}.properties[metadata]`, "must not specify anything other than name and generateName, but metadata is implicitly specified");
  }
  for (const [k, v] of Object.entries(props)) if (isMap(v)) node(e, v, `${path}.properties[${k}]`, "field");
  if (isMap(s.additionalProperties)) node(e, s.additionalProperties, `${path}.additionalProperties`, "field");
  if (isMap(s.items)) node(e, s.items, `${path}.items`, "item");
}

/** Whether a schema anywhere in the definition sets a default or an x-kubernetes-* extension. */
function usesStructuralFeatures(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(usesStructuralFeatures);
  if (!isMap(v)) return false;
  return Object.entries(v).some(([k, x]) => k === "default" || k.startsWith("x-kubernetes-") || usesStructuralFeatures(x));
}

/**
 * The structural rules for every version's schema, and no pruning switched off. A request at v1beta1
 * (`beta`) may switch pruning off and use schemas that are not structural, unless they set defaults or
 * extensions, as upstream allows for compatibility; an update may keep pruning off once it was.
 */
export function structuralSchemas(e: Errs, spec: Obj, opts: { beta?: boolean; old?: Obj } = {}) {
  if (spec.preserveUnknownFields === true && !opts.beta && opts.old?.spec?.preserveUnknownFields !== true) {
    e.invalid("spec.preserveUnknownFields", true, "cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead");
  }
  const versions: Obj[] = Array.isArray(spec.versions) ? spec.versions : [];
  if (opts.beta && !usesStructuralFeatures(versions.map((v) => v?.schema))) return;
  versions.forEach((v: Obj, i: number) => {
    const schema = v?.schema?.openAPIV3Schema;
    if (isMap(schema)) node(e, schema, `spec.versions[${i}].schema.openAPIV3Schema`, "root");
  });
}
