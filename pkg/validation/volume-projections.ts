// downwardAPI and projected volume sources: each file's path, mode and source, and the paths of a
// projection unique across its sources.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { int, list, obj, str } from "./decode.ts";
import { objectFieldSelector, resourceFieldSelector, VOLUME_FIELDS } from "./downward-api.ts";
import { validateKeyToPath, validateLocalNonReservedPath, validateMode } from "./volume-paths.ts";

const has = (v: unknown) => v !== undefined && v !== null;

/** One downward API file; upstream reports its fields under the source's path, without the item's index. */
function downwardAPIFile(errs: Errs, f: Obj, path: string): string {
  const target = str(f.path, `${path}.path`) ?? "";
  if (!target) errs.required(`${path}.path`);
  validateLocalNonReservedPath(errs, target, `${path}.path`);
  if (has(f.fieldRef)) {
    objectFieldSelector(errs, obj(f.fieldRef, `${path}.fieldRef`), `${path}.fieldRef`, VOLUME_FIELDS);
    if (has(f.resourceFieldRef)) errs.invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously");
  } else if (has(f.resourceFieldRef)) resourceFieldSelector(errs, obj(f.resourceFieldRef, `${path}.resourceFieldRef`), `${path}.resourceFieldRef`, true);
  else errs.required(path, "one of fieldRef and resourceFieldRef is required");
  validateMode(errs, f.mode, `${path}.mode`);
  return target;
}

export function validateDownwardAPIVolume(errs: Errs, s: Obj, path: string) {
  validateMode(errs, s.defaultMode, `${path}.defaultMode`);
  for (const [i, f] of list(s.items, `${path}.items`).entries()) downwardAPIFile(errs, obj(f, `${path}.items[${i}]`), path);
}

const TEN_MINUTES = 600;
const MAX_EXPIRATION = 2 ** 32;

export function validateProjectedVolume(errs: Errs, s: Obj, path: string) {
  validateMode(errs, s.defaultMode, `${path}.defaultMode`);
  const paths = new Set<string>();
  /** A second file on one path is reported at the volume, with the name of the source (or the path) that repeats it. */
  const claim = (target: string, shown: unknown) => {
    if (!target) return;
    if (paths.has(target)) errs.invalid(path, shown, "conflicting duplicate paths");
    paths.add(target);
  };
  errs.each<Obj>(`${path}.sources`, list(s.sources, `${path}.sources`), (src, sp) => {
    const source = obj(src, sp);
    let count = 0;
    for (const kind of ["secret", "configMap"]) {
      if (!has(source[kind])) continue;
      count++;
      const p = `${sp}.${kind}`, ref = obj(source[kind], p);
      const name = str(ref.name, `${p}.name`) ?? "";
      if (!name) errs.required(`${p}.name`);
      errs.each<Obj>(`${p}.items`, list(ref.items, `${p}.items`), (it, ip) => claim(validateKeyToPath(errs, obj(it, ip), ip), name));
    }
    if (has(source.downwardAPI)) {
      count++;
      const p = `${sp}.downwardAPI`, api = obj(source.downwardAPI, p);
      for (const [i, f] of list(api.items, `${p}.items`).entries()) {
        const target = downwardAPIFile(errs, obj(f, `${p}.items[${i}]`), p);
        claim(target, target);
      }
    }
    if (has(source.serviceAccountToken)) {
      count++;
      const p = `${sp}.serviceAccountToken`, token = obj(source.serviceAccountToken, p);
      const seconds = int(token.expirationSeconds, `${p}.expirationSeconds`) ?? 0;
      if (seconds < TEN_MINUTES) errs.invalid(`${p}.expirationSeconds`, seconds, "may not specify a duration less than 10 minutes");
      if (seconds > MAX_EXPIRATION) errs.invalid(`${p}.expirationSeconds`, seconds, "may not specify a duration larger than 2^32 seconds");
      // upstream names the projection's path here, not the token's
      if (!str(token.path, `${p}.path`)) errs.required(`${path}.path`);
    }
    if (count > 1) errs.forbidden(sp, "may not specify more than 1 volume type");
  });
}
