// What upstream answers when a patched object cannot be read back into its type: a 422 naming the
// patch, with the converter's words. Kite checks the metadata maps (labels, annotations), the fields
// patches most often break.
import { goFmt } from "../../patch/strategic.ts";
import { invalid } from "../status.ts";

/** Go's kind of a value decoded from JSON into an unstructured object. */
function goKind(v: unknown): string {
  if (Array.isArray(v)) return "slice";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return typeof v === "boolean" ? "bool" : typeof v === "object" ? "map" : "string";
}

/** The type Go names for a value that cannot become a string. */
function goType(v: unknown): string {
  const k = goKind(v);
  return k === "slice" ? "[]interface {}" : k === "map" ? "map[string]interface {}" : k;
}

/** Why upstream could not decode the object's labels or annotations, if it could not. */
function metadataProblem(obj: Record<string, any>): string | undefined {
  for (const f of ["labels", "annotations"]) {
    const m = obj?.metadata?.[f];
    if (m === undefined || m === null) continue;
    if (typeof m !== "object" || Array.isArray(m)) return `cannot restore map from ${goKind(m)}`;
    for (const v of Object.values(m)) if (v !== null && typeof v !== "string") return `cannot convert ${goType(v)} to string`;
  }
  return undefined;
}

/**
 * Throws upstream's 422 when the patched object cannot be decoded. A strategic merge patch quotes the
 * patch as Go prints it; the other patch types quote the patched object.
 */
export function checkPatched(patched: Record<string, any>, patch: unknown, strategic: boolean): void {
  const why = metadataProblem(patched);
  if (!why) return;
  const value = strategic ? goFmt(patch) : JSON.stringify(patched);
  throw invalid({ group: "", resource: "", kind: "" }, "", [{ field: "patch", reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(value)}: ${why}` }]);
}
