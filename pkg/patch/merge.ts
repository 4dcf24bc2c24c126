// JSON merge patch (RFC 7386) and JSON patch (RFC 6902, through fast-json-patch).
import jsonpatch, { type Operation } from "fast-json-patch";

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return patch;
  const out: Record<string, unknown> = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export class PatchFailure extends Error {}

export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new PatchFailure("json patch must be an array of operations");
  const err = jsonpatch.validate(ops as Operation[], target);
  if (err) throw new PatchFailure(err.message.split("\n")[0]);
  try {
    return jsonpatch.applyPatch(structuredClone(target), ops as Operation[], true, false).newDocument;
  } catch (e) {
    throw new PatchFailure((e as Error).message.split("\n")[0]);
  }
}
