// What the job controller needs of upstream's controller_utils.go besides podcontrol.ts: creations in
// index-aware slow-start batches, the counting expectations (ControllerExpectations) that keep it from
// acting on a cache that has not seen its own writes yet, and the order in which active pods are given up.
import type { Obj } from "../client/client.ts";
import { isPodReady as isReady, readyCondition } from "./podutil.ts";

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const restarts = (p: Obj) => (p.status?.containerStatuses ?? []).reduce((n: number, c: Obj) => Math.max(n, c.restartCount ?? 0), 0);
const time = (s?: string) => (s ? Date.parse(s) : 0);

/**
 * controller.ActivePods' order: the pods to give up first come first — unscheduled before scheduled,
 * pending before unknown before running, not ready before ready, ready for less time first, more restarts
 * first, newer first.
 */
export function compareForRemoval(a: Obj, b: Obj): number {
  const unscheduled = Number(!!a.spec?.nodeName) - Number(!!b.spec?.nodeName);
  if (unscheduled) return unscheduled;
  const phase = (PHASE_RANK[a.status?.phase] ?? 0) - (PHASE_RANK[b.status?.phase] ?? 0);
  if (phase) return phase;
  const ready = Number(isReady(a)) - Number(isReady(b));
  if (ready) return ready;
  if (isReady(a) && isReady(b)) {
    const since = time(readyCondition(b)?.lastTransitionTime) - time(readyCondition(a)?.lastTransitionTime);
    if (since) return since;
  }
  const r = restarts(b) - restarts(a);
  if (r) return r;
  return time(b.metadata.creationTimestamp) - time(a.metadata.creationTimestamp);
}

/** Upstream's SlowStartInitialBatchSize: create 1, then 2, 4, ... as long as none fails. */
const SLOW_START_INITIAL_BATCH = 1;

/**
 * Runs `create(i)` for i in [0, count) in slow-start batches; stops after a batch with a
 * failure. Returns how many were not created and the first error.
 */
export async function createInBatches(count: number, create: (i: number) => Promise<void>): Promise<{ skipped: number; failed: number; error?: unknown }> {
  let done = 0, failed = 0, error: unknown;
  for (let batch = Math.min(count, SLOW_START_INITIAL_BATCH); done < count; batch = Math.min(2 * batch, count - done)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, (_, k) => create(done + k)));
    done += batch;
    const errs = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    failed += errs.length;
    if (errs.length) {
      error ??= errs[0].reason;
      break;
    }
  }
  return { skipped: count - done, failed, error };
}


/** How long expectations hold before a controller acts anyway (upstream's ExpectationsTimeout). */
const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

/**
 * controller.ControllerExpectations: the creations and deletions a controller waits to see in its cache
 * before it syncs the owner again.
 */
export class Expectations {
  private readonly byKey = new Map<string, { add: number; del: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    return !e || (e.add <= 0 && e.del <= 0) || this.now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  expect(key: string, add: number, del: number): void { this.byKey.set(key, { add, del, at: this.now() }); }
  creationObserved(key: string): void { const e = this.byKey.get(key); if (e) e.add--; }
  deletionObserved(key: string): void { const e = this.byKey.get(key); if (e) e.del--; }
  forget(key: string): void { this.byKey.delete(key); }
}
