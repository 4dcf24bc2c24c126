// Which pods a controller deletes first when it scales down (upstream v1.21's ActivePodsWithRanks): each
// rule decides only when the earlier ones tie.
import type { Obj } from "../client/client.ts";
import { isPodReady, readyCondition } from "./podutil.ts";

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

const time = (t: string | undefined): number => (t ? Date.parse(t) : 0);

/** t1 before t2 in deletion order: a zero time first, then the later time (afterOrZero). */
const afterOrZero = (t1: number, t2: number): boolean => (!t1 || !t2 ? !t1 : t1 > t2);

const maxRestarts = (pod: Obj): number => Math.max(0, ...(pod.status?.containerStatuses ?? []).map((c: Obj) => c.restartCount ?? 0));

/** Negative when pod a should be deleted before b; rank: its node's count of related pods. */
function compare(a: Obj, b: Obj, rank: Map<Obj, number>): number {
  const rules: (() => boolean | undefined)[] = [
    // unassigned before assigned
    () => { const x = a.spec?.nodeName ?? "", y = b.spec?.nodeName ?? ""; return x !== y && (!x || !y) ? !x : undefined; },
    // Pending before Unknown before Running
    () => { const x = PHASE_ORDER[a.status?.phase] ?? 0, y = PHASE_ORDER[b.status?.phase] ?? 0; return x !== y ? x < y : undefined; },
    // not ready before ready
    () => { const x = isPodReady(a), y = isPodReady(b); return x !== y ? !x : undefined; },
    // doubled up on a node before alone
    () => { const x = rank.get(a) ?? 0, y = rank.get(b) ?? 0; return x !== y ? x > y : undefined; },
    // ready for less time before ready for longer
    () => {
      if (!isPodReady(a) || !isPodReady(b)) return undefined;
      const x = time(readyCondition(a)?.lastTransitionTime), y = time(readyCondition(b)?.lastTransitionTime);
      return x !== y ? afterOrZero(x, y) : undefined;
    },
    // more restarts before fewer
    () => { const x = maxRestarts(a), y = maxRestarts(b); return x !== y ? x > y : undefined; },
    // newer before older
    () => { const x = time(a.metadata.creationTimestamp), y = time(b.metadata.creationTimestamp); return x !== y ? afterOrZero(x, y) : undefined; },
  ];
  for (const rule of rules) {
    const first = rule();
    if (first !== undefined) return first ? -1 : 1;
  }
  return 0;
}

/** The `n` pods of `pods` to delete first; `related` are the active pods of the controller's siblings too. */
export function podsToDelete(pods: Obj[], related: Obj[], n: number): Obj[] {
  if (n >= pods.length) return pods;
  const onNode = new Map<string, number>();
  for (const p of related) {
    const node = p.spec?.nodeName ?? "";
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const rank = new Map(pods.map((p) => [p, onNode.get(p.spec?.nodeName ?? "") ?? 0]));
  return [...pods].sort((a, b) => compare(a, b, rank)).slice(0, n);
}
