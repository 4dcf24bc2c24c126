// Paths and file modes inside a volume (items of a secret, configMap, downwardAPI or projection;
// subPaths; seccomp profiles), as upstream's core validation words them.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { int, str } from "./decode.ts";

/** A path inside the volume: relative, without `..` steps. */
export function validateLocalDescendingPath(errs: Errs, p: string, path: string) {
  if (p.startsWith("/")) errs.invalid(path, p, "must be a relative path");
  if (p.split(/[\\/]/).includes("..")) errs.invalid(path, p, "must not contain '..'");
}

/** A host path may not step up with `..`. */
export function validateNoBacksteps(errs: Errs, p: string, path: string) {
  if (p.split("/").includes("..")) errs.invalid(path, p, "must not contain '..'");
}

/** A file name a volume writes: descending, and not starting with `..` (reported once when both hold). */
export function validateLocalNonReservedPath(errs: Errs, p: string, path: string) {
  validateLocalDescendingPath(errs, p, path);
  if (p.startsWith("..") && !p.startsWith("../")) errs.invalid(path, p, "must not start with '..'");
}

export function validateMode(errs: Errs, v: unknown, path: string) {
  const mode = int(v, path);
  if (mode !== undefined && (mode < 0 || mode > 0o777)) errs.invalid(path, mode, "must be a number between 0 and 0777 (octal), both inclusive");
}

/** One item of a secret's or configMap's `items`; returns its path. */
export function validateKeyToPath(errs: Errs, it: Obj, p: string): string {
  if (!str(it?.key, `${p}.key`)) errs.required(`${p}.key`);
  const target = str(it?.path, `${p}.path`) ?? "";
  if (!target) errs.required(`${p}.path`);
  validateLocalNonReservedPath(errs, target, `${p}.path`);
  validateMode(errs, it?.mode, `${p}.mode`);
  return target;
}
