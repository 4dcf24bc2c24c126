// The bridge between client-side and server-side `kubectl apply` (manager "kubectl"), as
// upstream has it: conflicts on fields whose live value still matches the client-side
// last-applied annotation are not conflicts (the user is upgrading the same config), and a
// server-side apply keeps that annotation, where it exists, in step with the config.
import { compareObjects } from "./compare.ts";
import { FieldSet } from "./fieldset.ts";
import type { Atom } from "./schema.ts";
import { toFieldSet } from "./tofieldset.ts";
import type { Fields } from "./updater.ts";
import { type Obj, compareStrings, goJSON } from "./value.ts";
import { isMap } from "../util/ismap.ts";

export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
export const KUBECTL = "kubectl";

const annotationsOf = (o: unknown): Obj | undefined =>
  isMap(o) && isMap(o.metadata) && isMap(o.metadata.annotations) ? o.metadata.annotations : undefined;

/** Fields of the last-applied config whose live value is unchanged; undefined without one. */
export function allowedByLastApplied(atom: Atom, live: Obj, apiVersion: string): FieldSet | undefined {
  const text = annotationsOf(live)?.[LAST_APPLIED];
  if (typeof text !== "string" || text === "") return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isMap(last) || last.apiVersion !== apiVersion) return undefined;
  try {
    const c = compareObjects(last, live, atom);
    return toFieldSet(last, atom).difference(c.modified).difference(c.added).difference(c.removed);
  } catch {
    return undefined;
  }
}

/** The conflicts left once `allowed` paths are taken out; managers left with none drop out. */
export function withoutAllowed(conflicts: Fields, allowed: FieldSet): Fields {
  const out: Fields = new Map();
  for (const [key, vs] of conflicts) {
    const set = new FieldSet();
    for (const p of vs.set.paths()) if (!allowed.has(p)) set.insert(p);
    if (!set.isEmpty()) out.set(key, { ...vs, set });
  }
  return out;
}

/** Rewrites an existing last-applied annotation on `object` from the applied `config`. */
export function syncLastApplied(object: Obj, config: Obj): void {
  const annotations = annotationsOf(object);
  if (!annotations || !Object.hasOwn(annotations, LAST_APPLIED)) return;
  const copy: Obj = { ...config };
  const cfgAnnotations = annotationsOf(config);
  if (cfgAnnotations && isMap(copy.metadata)) {
    const { [LAST_APPLIED]: _, ...rest } = cfgAnnotations;
    copy.metadata = { ...copy.metadata, annotations: rest };
  }
  annotations[LAST_APPLIED] = `${sortedJSON(copy)}\n`;
}

// Go's encoder, as kubectl writes the annotation: map keys sorted, HTML characters escaped.
function sortedJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJSON).join(",")}]`;
  if (isMap(v)) {
    const keys = Object.keys(v).sort(compareStrings);
    return `{${keys.map((k) => `${goJSON(k)}:${sortedJSON(v[k])}`).join(",")}}`;
  }
  return goJSON(v ?? null);
}
