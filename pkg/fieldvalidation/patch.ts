// What upstream's strict reading of a patch itself reports, before the patched object is checked: repeated
// keys anywhere in it, and for a JSON patch, operations with keys an operation does not have.
import type { BodyRepeats } from "./index.ts";

const OP_KEYS = new Set(["op", "path", "from", "value"]);
const opIndex = (path: string) => Number(/^\[(\d+)\]/.exec(path)?.[1] ?? 0);

export function patchProblems(patch: unknown, repeats: BodyRepeats, jsonPatch: boolean): string[] {
  if (!jsonPatch) return repeats.list.map((r) => `duplicate field "${r.path}"`);
  // operation by operation: its unknown keys, then its repeats
  const found: [number, string][] = [];
  (patch as unknown[]).forEach((op, i) => {
    if (typeof op !== "object" || op === null || Array.isArray(op)) return;
    for (const k of Object.keys(op)) if (!OP_KEYS.has(k)) found.push([i, `json patch unknown field "[${i}].${k}"`]);
  });
  for (const r of repeats.list) found.push([opIndex(r.path), `json patch duplicate field "${r.path}"`]);
  return found.sort((a, b) => a[0] - b[0]).map(([, m]) => m);
}
