// The conditions the namespace controller keeps on a namespace being deleted (upstream v1.21's
// status_condition_utils.go): each type is True with what went wrong, or False with upstream's "ok" words.
import type { Obj } from "../client/client.ts";

/** What one pass of emptying a namespace found. */
export interface DeletionReport {
  /** Discovery failed (the pass went on with what it had). */
  discoveryError?: string;
  /** One message per type whose content could not be deleted. */
  contentErrors: string[];
  /** `resource.group` → objects left. */
  remaining: Map<string, number>;
  /** finalizer → objects left that carry it. */
  finalizers: Map<string, number>;
}

const OK: Record<string, [reason: string, message: string]> = {
  NamespaceDeletionDiscoveryFailure: ["ResourcesDiscovered", "All resources successfully discovered"],
  NamespaceDeletionGroupVersionParsingFailure: ["ParsedGroupVersions", "All legacy kube types successfully parsed"],
  NamespaceDeletionContentFailure: ["ContentDeleted", "All content successfully deleted, may be waiting on finalization"],
  NamespaceContentRemaining: ["ContentRemoved", "All content successfully removed"],
  NamespaceFinalizersRemaining: ["ContentHasNoFinalizers", "All content-preserving finalizers finished"],
};

/** The failing conditions of a report, by type: [reason, message]. */
function failures(r: DeletionReport): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  if (r.discoveryError) out.set("NamespaceDeletionDiscoveryFailure", ["DiscoveryFailed", r.discoveryError]);
  if (r.contentErrors.length) {
    out.set("NamespaceDeletionContentFailure", ["ContentDeletionFailed", `Failed to delete all resource types, ${r.contentErrors.length} remaining: ${[...r.contentErrors].sort().join(", ")}`]);
  }
  const left = [...r.remaining].filter(([, n]) => n > 0).map(([gr, n]) => `${gr} has ${n} resource instances`).sort();
  if (left.length) out.set("NamespaceContentRemaining", ["SomeResourcesRemain", `Some resources are remaining: ${left.join(", ")}`]);
  const fins = [...r.finalizers].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`).sort();
  if (fins.length) out.set("NamespaceFinalizersRemaining", ["SomeFinalizersRemain", `Some content in the namespace has finalizers remaining: ${fins.join(", ")}`]);
  return out;
}

/**
 * The namespace's conditions after a pass: every type present, a changed status moving its
 * lastTransitionTime. Returns undefined when nothing changed (no status write is needed).
 */
export function nextConditions(current: Obj[] | undefined, r: DeletionReport, now: string): Obj[] | undefined {
  const conditions = (current ?? []).map((c) => ({ ...c }));
  const failing = failures(r);
  let changed = false;
  for (const type of Object.keys(OK)) {
    const [reason, message] = failing.get(type) ?? OK[type];
    const status = failing.has(type) ? "True" : "False";
    const old = conditions.find((c) => c.type === type);
    if (!old) {
      conditions.push({ type, status, lastTransitionTime: now, reason, message });
      changed = true;
    } else if (old.status !== status || old.reason !== reason || old.message !== message) {
      if (old.status !== status) old.lastTransitionTime = now;
      Object.assign(old, { status, reason, message });
      changed = true;
    }
  }
  return changed ? conditions : undefined;
}
