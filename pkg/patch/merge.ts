// JSON merge patch (RFC 7386); JSON patch (RFC 6902) is in jsonpatch.ts.
import { setMember } from "./jsonpatch.ts";
import { isMap } from "../util/ismap.ts";


export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return patch;
  const out: Record<string, unknown> = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setMember(out, k, mergePatch(Object.prototype.hasOwnProperty.call(out, k) ? out[k] : undefined, v));
  }
  return out;
}
