// What decoding a custom resource does with its version's structural schema, as upstream's codec does:
// `default`s are filled in, then fields the schema does not declare are pruned (unless
// x-kubernetes-preserve-unknown-fields). apiVersion, kind and metadata of the object (and of embedded
// resources) are never pruned.
import type { Obj } from "../registry/types.ts";
import { isMap } from "../util/ismap.ts";

const ROOT_FIELDS = ["apiVersion", "kind", "metadata"];
/** ObjectMeta's fields: the rest of an object's metadata is dropped, as decoding into ObjectMeta drops it. */
const OBJECT_META = new Set([
  "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
  "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers", "clusterName", "managedFields",
]);

/** The child path of `path` (`spec.items[0].name`). */
export const childPath = (path: string, key: string | number) =>
  typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/** Fills in the schema's defaults where a field is missing (not where it is null). */
export function applySchemaDefaults(v: unknown, s: Obj | undefined): void {
  if (!s) return;
  if (Array.isArray(v)) {
    for (const item of v) applySchemaDefaults(item, s.items);
    return;
  }
  if (!isMap(v)) return;
  for (const [k, ps] of Object.entries((s.properties ?? {}) as Record<string, Obj>)) {
    if (!(k in v) && ps.default !== undefined) v[k] = structuredClone(ps.default);
    applySchemaDefaults(v[k], ps);
  }
  if (isMap(s.additionalProperties)) {
    for (const [k, x] of Object.entries(v)) if (!(k in (s.properties ?? {}))) applySchemaDefaults(x, s.additionalProperties);
  }
}

/** Drops undeclared fields of v in place; returns their paths (for fieldValidation). */
export function prune(v: unknown, s: Obj | undefined, path = "", root = true): string[] {
  const pruned: string[] = [];
  walk(v, s, path, root, pruned);
  return pruned;
}

function walk(v: unknown, s: Obj | undefined, path: string, root: boolean, out: string[]): void {
  if (!s || s["x-kubernetes-int-or-string"]) return;
  if (Array.isArray(v)) {
    v.forEach((item, i) => walk(item, s.items, childPath(path, i), false, out));
    return;
  }
  if (!isMap(v)) return;
  const keep = root || s["x-kubernetes-embedded-resource"] ? ROOT_FIELDS : [];
  const props = (s.properties ?? {}) as Record<string, Obj>;
  const additional = isMap(s.additionalProperties) ? s.additionalProperties : undefined;
  const preserve = !!s["x-kubernetes-preserve-unknown-fields"] || s.additionalProperties === true;
  for (const k of Object.keys(v)) {
    // metadata is ObjectMeta's, whatever the schema says of it
    if (k === "metadata" && keep.includes(k) && isMap(v[k])) {
      for (const f of Object.keys(v[k])) if (!OBJECT_META.has(f)) { delete v[k][f]; out.push(childPath(childPath(path, k), f)); }
    }
    if (keep.includes(k)) continue;
    const ks = props[k] ?? additional;
    if (ks) walk(v[k], ks, childPath(path, k), false, out);
    else if (!preserve) {
      delete v[k];
      out.push(childPath(path, k));
    }
  }
}
