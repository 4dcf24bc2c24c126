// Checks on an apply body before it is merged, with upstream's messages (all are 400s).

import { isMap } from "../util/ismap.ts";

export interface ApplyTarget {
  /** The apiVersion of the request's URL (group/version). */
  apiVersion?: string;
  /** The kind served at the URL. */
  kind?: string;
  /** The name in the URL. */
  name?: string;
  /** The namespace in the URL, for namespaced resources. */
  namespace?: string;
}

/** An error message for an unusable apply configuration, or null when it may be applied. */
export function validateApplyConfig(config: unknown, target: ApplyTarget = {}): string | null {
  if (!isMap(config)) return "error decoding YAML: the apply configuration must be an object";
  const meta = config.metadata;
  if (meta !== undefined && meta !== null && !isMap(meta)) return "metadata must be an object";
  if (isMap(meta) && Object.hasOwn(meta, "managedFields")) return "metadata.managedFields must be nil";
  const apiVersion = typeof config.apiVersion === "string" ? config.apiVersion : "";
  if (!apiVersion || (target.apiVersion !== undefined && apiVersion !== target.apiVersion)) {
    return `Incorrect version specified in apply patch. Specified patch version: ${apiVersion}, expected: ${target.apiVersion ?? ""}`;
  }
  const kind = typeof config.kind === "string" ? config.kind : "";
  if (!kind || (target.kind !== undefined && kind !== target.kind)) {
    return `failed to create typed patch object: no corresponding type for ${apiVersion}, Kind=${kind}`;
  }
  const name = isMap(meta) && typeof meta.name === "string" ? meta.name : "";
  if (!name || (target.name !== undefined && name !== target.name)) {
    return `the name of the object (${name}) does not match the name on the URL (${target.name ?? ""})`;
  }
  const namespace = isMap(meta) && typeof meta.namespace === "string" ? meta.namespace : "";
  if (target.namespace && namespace && namespace !== target.namespace) {
    return `the namespace of the object (${namespace}) does not match the namespace on the request (${target.namespace})`;
  }
  return null;
}
