// The scheduling queue (upstream's PriorityQueue): activeQ holds pods ready to be tried, in the
// profile's QueueSort order; backoffQ holds pods waiting out their backoff after a failure; the
// unschedulable map holds pods no node fit, until a cluster event could change that (or 60s pass).
import { PodInfo, podKey, type Pod, type QueuedPodInfo } from "../framework/index.ts";
import { Heap } from "./heap.ts";
import { Nominator } from "./nominator.ts";

export const DEFAULT_POD_INITIAL_BACKOFF_MS = 1000;
export const DEFAULT_POD_MAX_BACKOFF_MS = 10_000;
/** How long a pod may stay unschedulable before it is retried anyway. */
export const UNSCHEDULABLE_Q_TIME_INTERVAL_MS = 60_000;

export interface QueueOptions {
  less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  podInitialBackoffMs?: number;
  podMaxBackoffMs?: number;
  now?: () => number;
  nominator?: Nominator;
}

const keyOf = (q: QueuedPodInfo) => podKey(q.podInfo.pod);

/** Same pod apart from what the scheduler does not read (status, resourceVersion, managedFields...). */
function isPodUpdated(oldPod: Pod, newPod: Pod): boolean {
  const strip = (p: Pod) => {
    const { resourceVersion: _rv, generation: _g, managedFields: _m, finalizers: _f, ...meta } = p.metadata;
    return { metadata: meta, spec: p.spec };
  };
  return !Bun.deepEquals(strip(oldPod), strip(newPod));
}

export class SchedulingQueue {
  readonly nominator: Nominator;
  private readonly activeQ: Heap<QueuedPodInfo>;
  private readonly backoffQ: Heap<QueuedPodInfo>;
  private readonly unschedulableQ = new Map<string, QueuedPodInfo>();
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly now: () => number;
  private waiters: ((q: QueuedPodInfo | null) => void)[] = [];
  private closed = false;
  private timers: ReturnType<typeof setInterval>[] = [];
  /** Incremented by every pop: a failed pod remembers the cycle it was tried in. */
  schedulingCycle = 0;
  /** The cycle of the last move request; a pod tried before it goes to backoff rather than unschedulable. */
  private moveRequestCycle = -1;

  constructor(opts: QueueOptions) {
    this.initialBackoff = opts.podInitialBackoffMs ?? DEFAULT_POD_INITIAL_BACKOFF_MS;
    this.maxBackoff = opts.podMaxBackoffMs ?? DEFAULT_POD_MAX_BACKOFF_MS;
    this.now = opts.now ?? Date.now;
    this.nominator = opts.nominator ?? new Nominator();
    this.activeQ = new Heap(keyOf, opts.less);
    this.backoffQ = new Heap(keyOf, (a, b) => this.backoffTime(a) < this.backoffTime(b));
  }

  private newQueuedPodInfo(pod: Pod): QueuedPodInfo {
    const t = this.now();
    return { podInfo: new PodInfo(pod), timestamp: t, attempts: 0, initialAttemptTimestamp: t };
  }

  /** A new pending pod: straight to activeQ. */
  add(pod: Pod): void {
    const key = podKey(pod);
    this.unschedulableQ.delete(key);
    this.backoffQ.delete(key);
    this.pushActive(this.newQueuedPodInfo(pod));
    this.nominator.addNominatedPod(pod, "");
  }

  /** A pod that failed the cycle `podSchedulingCycle`: unschedulable, or backoff if the cluster changed meanwhile. */
  addUnschedulableIfNotPresent(q: QueuedPodInfo, podSchedulingCycle: number): void {
    const key = keyOf(q);
    if (this.unschedulableQ.has(key)) throw new Error(`pod ${key} is already present in unschedulable queue`);
    if (this.activeQ.has(key)) throw new Error(`pod ${key} is already present in the active queue`);
    if (this.backoffQ.has(key)) throw new Error(`pod ${key} is already present in the backoff queue`);
    q.timestamp = this.now();
    if (this.moveRequestCycle >= podSchedulingCycle) this.backoffQ.addOrUpdate(q);
    else this.unschedulableQ.set(key, q);
    this.nominator.addNominatedPod(q.podInfo.pod, "");
  }

  /** A pending pod changed. */
  update(oldPod: Pod, newPod: Pod): void {
    const key = podKey(oldPod);
    const inActive = this.activeQ.get(key);
    if (inActive) {
      this.nominator.updateNominatedPod(oldPod, newPod);
      inActive.podInfo.update(newPod);
      this.activeQ.addOrUpdate(inActive);
      return;
    }
    const inBackoff = this.backoffQ.get(key);
    if (inBackoff) {
      this.nominator.updateNominatedPod(oldPod, newPod);
      inBackoff.podInfo.update(newPod);
      this.backoffQ.addOrUpdate(inBackoff);
      return;
    }
    const unsched = this.unschedulableQ.get(key);
    if (unsched) {
      this.nominator.updateNominatedPod(oldPod, newPod);
      const changed = isPodUpdated(oldPod, newPod);
      unsched.podInfo.update(newPod);
      if (changed) {
        // A changed pod may fit now: retry it (after its backoff).
        this.unschedulableQ.delete(key);
        if (this.isBackingOff(unsched)) this.backoffQ.addOrUpdate(unsched);
        else this.pushActive(unsched);
      }
      return;
    }
    this.pushActive(this.newQueuedPodInfo(newPod));
    this.nominator.addNominatedPod(newPod, "");
  }

  delete(pod: Pod): void {
    const key = podKey(pod);
    this.nominator.deleteNominatedPodIfExists(pod);
    this.activeQ.delete(key);
    this.backoffQ.delete(key);
    this.unschedulableQ.delete(key);
  }

  /** A pod was bound: unschedulable pods whose required affinity it matches may fit now. */
  assignedPodAdded(pod: Pod): void {
    const matching: QueuedPodInfo[] = [];
    for (const q of this.unschedulableQ.values()) {
      for (const t of q.podInfo.requiredAffinityTerms) {
        if (t.namespaces.has(pod.metadata.namespace ?? "") && t.selector.matches(pod.metadata.labels)) {
          matching.push(q);
          break;
        }
      }
    }
    this.movePods(matching);
  }

  /** A cluster event (node added or changed, pod deleted...) that could make unschedulable pods fit. */
  moveAllToActiveOrBackoffQueue(_event: string): void {
    this.movePods([...this.unschedulableQ.values()]);
  }

  private movePods(list: QueuedPodInfo[]): void {
    for (const q of list) {
      const key = keyOf(q);
      this.unschedulableQ.delete(key);
      if (this.isBackingOff(q)) this.backoffQ.addOrUpdate(q);
      else this.pushActive(q);
    }
    this.moveRequestCycle = this.schedulingCycle;
  }

  /** Moves pods whose backoff has expired to activeQ (upstream runs this every second). */
  flushBackoffQCompleted(): void {
    const now = this.now();
    for (let q = this.backoffQ.peek(); q && this.backoffTime(q) <= now; q = this.backoffQ.peek()) {
      this.backoffQ.pop();
      this.pushActive(q);
    }
  }

  /** Retries pods unschedulable for longer than 60s (upstream runs this every 30 seconds). */
  flushUnschedulableQLeftover(): void {
    const now = this.now();
    const stale = [...this.unschedulableQ.values()].filter((q) => now - q.timestamp > UNSCHEDULABLE_Q_TIME_INTERVAL_MS);
    if (stale.length > 0) this.movePods(stale);
  }

  /** Starts the periodic flushes. */
  run(): void {
    this.timers.push(setInterval(() => this.flushBackoffQCompleted(), 1000));
    this.timers.push(setInterval(() => this.flushUnschedulableQLeftover(), 30_000));
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    for (const w of this.waiters.splice(0)) w(null);
  }

  /** The next pod to schedule; waits while activeQ is empty. Null once the queue is closed. */
  pop(): Promise<QueuedPodInfo | null> {
    const q = this.tryPop();
    if (q || this.closed) return Promise.resolve(q);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The next pod, or null if activeQ is empty now. */
  tryPop(): QueuedPodInfo | null {
    const q = this.activeQ.pop();
    if (!q) return null;
    q.attempts++;
    this.schedulingCycle++;
    return q;
  }

  private pushActive(q: QueuedPodInfo): void {
    this.activeQ.addOrUpdate(q);
    while (this.waiters.length > 0 && this.activeQ.length > 0) this.waiters.shift()!(this.tryPop());
  }

  /** Backoff doubles per attempt from the initial value up to the maximum. */
  backoffDuration(q: QueuedPodInfo): number {
    let d = this.initialBackoff;
    for (let i = 1; i < q.attempts; i++) {
      d *= 2;
      if (d > this.maxBackoff) return this.maxBackoff;
    }
    return d;
  }

  private backoffTime(q: QueuedPodInfo): number {
    return q.timestamp + this.backoffDuration(q);
  }

  private isBackingOff(q: QueuedPodInfo): boolean {
    return this.backoffTime(q) > this.now();
  }

  /** Pending pods per sub-queue, for scheduler_pending_pods{queue}. */
  pendingCounts(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.activeQ.length, backoff: this.backoffQ.length, unschedulable: this.unschedulableQ.size };
  }

  pendingPods(): Pod[] {
    return [...this.activeQ.values(), ...this.backoffQ.values(), ...this.unschedulableQ.values()].map((q) => q.podInfo.pod);
  }
}
