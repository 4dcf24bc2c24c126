// Indexed Jobs (completionMode Indexed): each pod carries its completion index in an annotation (and in
// JOB_COMPLETION_INDEX through the downward API), and the job's completedIndexes lists the indexes that
// succeeded as compressed intervals ("1,3-5,7").
import type { Obj } from "../client/client.ts";
import { isPodActive } from "./podutil.ts";

export const COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index";
const COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX";

export const isIndexedJob = (job: Obj): boolean => job.spec?.completionMode === "Indexed";

/** A pod's completion index, or undefined when missing or not a non-negative integer. */
export function completionIndex(pod: Obj): number | undefined {
  const v = pod.metadata?.annotations?.[COMPLETION_INDEX_ANNOTATION];
  if (typeof v !== "string" || !/^[+-]?\d+$/.test(v)) return undefined;
  const n = Number(v);
  return n >= 0 && Number.isSafeInteger(n) ? n : undefined;
}

/** The indexes below `completions` with a succeeded pod, as "a,b-c" intervals, and how many there are. */
export function succeededIndexes(pods: Obj[], completions: number): { text: string; count: number } {
  const done = new Set<number>();
  for (const p of pods) {
    const ix = completionIndex(p);
    if (ix !== undefined && ix < completions && p.status?.phase === "Succeeded") done.add(ix);
  }
  const sorted = [...done].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return { text: parts.join(","), count: sorted.length };
}

/** The first `count` indexes below `completions` that no active or succeeded pod holds. */
export function firstPendingIndexes(pods: Obj[], count: number, completions: number): number[] {
  const taken = new Set<number>();
  for (const p of pods) {
    const ix = completionIndex(p);
    if (ix !== undefined && (p.status?.phase === "Succeeded" || isPodActive(p))) taken.add(ix);
  }
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!taken.has(i)) out.push(i);
  return out;
}

/**
 * Active pods to remove before any other: those without a valid index (or one beyond `completions`)
 * and all but one of the pods sharing an index. Returns them and the rest.
 */
export function duplicateIndexPods(active: Obj[], completions: number): { remove: Obj[]; keep: Obj[] } {
  const remove: Obj[] = [], keep: Obj[] = [], seen = new Set<number>();
  const byIndex = [...active].sort((a, b) => (completionIndex(a) ?? -1) - (completionIndex(b) ?? -1));
  for (const p of byIndex) {
    const ix = completionIndex(p);
    if (ix === undefined || ix >= completions || seen.has(ix)) remove.push(p);
    else {
      seen.add(ix);
      keep.push(p);
    }
  }
  return { remove, keep };
}

/** The template with JOB_COMPLETION_INDEX (from the annotation) in every container that lacks it. */
export function withCompletionIndexEnv(template: Obj): Obj {
  const t = structuredClone(template);
  for (const c of [...(t.spec?.initContainers ?? []), ...(t.spec?.containers ?? [])]) {
    c.env ??= [];
    if (c.env.some((e: Obj) => e.name === COMPLETION_INDEX_ENV)) continue;
    c.env.push({ name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_ANNOTATION}']` } } });
  }
  return t;
}

/** The template of the pod for one index: its annotation and the hostname `<job>-<index>`. */
export function templateForIndex(template: Obj, jobName: string, index: number): Obj {
  const t = structuredClone(template);
  t.metadata ??= {};
  t.metadata.annotations = { ...(t.metadata.annotations ?? {}), [COMPLETION_INDEX_ANNOTATION]: String(index) };
  t.spec.hostname = `${jobName}-${index}`;
  return t;
}
