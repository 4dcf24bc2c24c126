// Whether tolerations tolerate taints (upstream's v1helper.TolerationsTolerateTaint).
import type { Taint, Toleration } from "../framework/index.ts";

/** One toleration against one taint: effect, key and value as the Toleration type documents. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  // An empty key matches every key (validation allows that only with Exists).
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? "") {
    case "Exists": return true;
    case "": case "Equal": return (t.value ?? "") === (taint.value ?? "");
    default: return false;
  }
}

export function tolerationsTolerateTaint(tolerations: Toleration[] | undefined, taint: Taint): boolean {
  for (const t of tolerations ?? []) if (toleratesTaint(t, taint)) return true;
  return false;
}
