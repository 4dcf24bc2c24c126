// One pod's trip through the scheduler without I/O (upstream's scheduleOne): the scheduling cycle
// (snapshot, filters, scores, PostFilter on failure, assume, Reserve, Permit) runs synchronously;
// the binding cycle (PreBind, Bind, PostBind) is async and may overlap the next pod's cycle. The
// caller pops pods, publishes the outcomes (events, conditions) and feeds the cache and queue.
import { Code, CycleState, isSuccess, Snapshot, type Framework, type Pod, type QueuedPodInfo } from "./framework/index.ts";
import { FitError, NoNodesAvailableError } from "./fit-error.ts";
import { GenericScheduler, type ScheduleResult } from "./generic-scheduler.ts";
import { DEFAULT_SCHEDULER_NAME } from "./profiles.ts";
import { REASON_SCHEDULER_ERROR, REASON_UNSCHEDULABLE, scheduledMessage, truncateMessage } from "./failure.ts";
import type { SchedulerCache } from "./internal/cache.ts";
import type { SchedulingQueue } from "./internal/queue.ts";

/** A failed attempt, ready to publish: the FailedScheduling event and PodScheduled=False condition. */
export interface Failure {
  kind: "failed";
  pod: Pod;
  error: Error;
  /** "Unschedulable" or "SchedulerError". */
  reason: string;
  /** The event message (truncated). */
  message: string;
  /** A node preemption made room on, to write to status.nominatedNodeName ("" for none). */
  nominatedNodeName: string;
  /** The schedule_attempts_total result: no node fit, or something broke. */
  attempt: "unschedulable" | "error";
}

export interface Scheduled {
  kind: "scheduled";
  fwk: Framework;
  state: CycleState;
  /** The pod with spec.nodeName set, as assumed in the cache. */
  assumedPod: Pod;
  podInfo: QueuedPodInfo;
  result: ScheduleResult;
  /** The cycle the pod was popped in, for re-queueing if binding fails. */
  cycle: number;
}

export interface Bound {
  kind: "bound";
  pod: Pod;
  nodeName: string;
  /** The Scheduled event's message. */
  message: string;
}

export type Outcome = Failure | Scheduled | { kind: "skipped"; pod: Pod };

export interface SchedulerOptions {
  cache: SchedulerCache;
  queue: SchedulingQueue;
  profiles: Map<string, Framework>;
  percentageOfNodesToScore?: number;
  /** The pod as the informer has it now; undefined once deleted (default: the pod as popped). */
  currentPod?: (pod: Pod) => Pod | undefined;
}

export class Scheduler {
  readonly snapshot = new Snapshot();
  readonly algorithm: GenericScheduler;
  private readonly cache: SchedulerCache;
  private readonly queue: SchedulingQueue;
  private readonly profiles: Map<string, Framework>;
  private readonly currentPod: (pod: Pod) => Pod | undefined;

  constructor(opts: SchedulerOptions) {
    this.cache = opts.cache;
    this.queue = opts.queue;
    this.profiles = opts.profiles;
    this.algorithm = new GenericScheduler(opts.percentageOfNodesToScore ?? 0);
    this.currentPod = opts.currentPod ?? ((p) => p);
  }

  /** The profile for the pod's spec.schedulerName. */
  frameworkFor(pod: Pod): Framework | undefined {
    return this.profiles.get(pod.spec.schedulerName || DEFAULT_SCHEDULER_NAME);
  }

  /** The scheduling cycle for a popped pod. */
  scheduleOne(q: QueuedPodInfo): Outcome {
    const pod = q.podInfo.pod;
    const cycle = this.queue.schedulingCycle;
    const fwk = this.frameworkFor(pod);
    if (!fwk) return this.fail(q, cycle, new Error(`profile not found for scheduler name "${pod.spec.schedulerName}"`), REASON_SCHEDULER_ERROR, "");
    if (pod.metadata.deletionTimestamp) return { kind: "skipped", pod };
    this.cache.updateSnapshot(this.snapshot);
    fwk.setSnapshot(this.snapshot);
    const state = new CycleState();
    let result: ScheduleResult;
    try {
      result = this.algorithm.schedule(fwk, state, pod, this.snapshot);
    } catch (e) {
      let nominated = "";
      if (e instanceof FitError && fwk.postFilter.length > 0) {
        const r = fwk.runPostFilterPlugins(state, pod, e.filteredNodesStatuses);
        if (isSuccess(r.status) && r.result) nominated = r.result.nominatedNodeName;
      }
      // Upstream reports every failure of the algorithm as Unschedulable, internal errors included.
      const fits = e instanceof FitError || e instanceof NoNodesAvailableError;
      return this.fail(q, cycle, e as Error, REASON_UNSCHEDULABLE, nominated, fits ? "unschedulable" : "error");
    }
    const host = result.suggestedHost;
    const assumedPod: Pod = { ...pod, spec: { ...pod.spec, nodeName: host } };
    try {
      this.cache.assumePod(assumedPod);
    } catch (e) {
      return this.fail(q, cycle, e as Error, REASON_SCHEDULER_ERROR, "");
    }
    this.queue.nominator.deleteNominatedPodIfExists(assumedPod);
    const reserve = fwk.runReservePluginsReserve(state, assumedPod, host);
    if (!isSuccess(reserve)) {
      this.undo(fwk, state, assumedPod, host);
      return this.fail(q, cycle, new Error(reserve.message()), REASON_SCHEDULER_ERROR, "");
    }
    const permit = fwk.runPermitPlugins(state, assumedPod, host);
    if (!isSuccess(permit)) {
      this.undo(fwk, state, assumedPod, host);
      return permit.isUnschedulable()
        ? this.fail(q, cycle, new Error(permit.message()), REASON_UNSCHEDULABLE, "", "unschedulable")
        : this.fail(q, cycle, new Error(permit.message()), REASON_SCHEDULER_ERROR, "");
    }
    return { kind: "scheduled", fwk, state, assumedPod, podInfo: q, result, cycle };
  }

  /** The binding cycle: PreBind, Bind, then PostBind; a failure forgets the assumed pod and re-queues it. */
  async bind(s: Scheduled): Promise<Bound | Failure> {
    const { fwk, state, assumedPod } = s;
    const host = s.result.suggestedHost;
    const pre = await fwk.runPreBindPlugins(state, assumedPod, host);
    if (!isSuccess(pre)) {
      this.undo(fwk, state, assumedPod, host);
      return this.fail(s.podInfo, s.cycle, new Error(pre.message()), REASON_SCHEDULER_ERROR, "");
    }
    const b = await fwk.runBindPlugins(state, assumedPod, host);
    this.cache.finishBinding(assumedPod);
    if (!isSuccess(b)) {
      this.undo(fwk, state, assumedPod, host);
      // Every bind plugin skipping the pod is reported with the status code, as upstream.
      const why = b.code === Code.Error ? b.message() : `bind status: ${Code[b.code]}, ${b.message()}`;
      return this.fail(s.podInfo, s.cycle, new Error(`binding rejected: ${why}`), REASON_SCHEDULER_ERROR, "");
    }
    fwk.runPostBindPlugins(state, assumedPod, host);
    return { kind: "bound", pod: assumedPod, nodeName: host, message: scheduledMessage(assumedPod, host) };
  }

  private undo(fwk: Framework, state: CycleState, assumedPod: Pod, host: string): void {
    fwk.runReservePluginsUnreserve(state, assumedPod, host);
    try { this.cache.forgetPod(assumedPod); } catch { /* already confirmed or removed by the watch */ }
  }

  /** Re-queues the pod (if it still exists and is unbound) and describes the failure. */
  private fail(q: QueuedPodInfo, cycle: number, error: Error, reason: string, nominatedNodeName: string, attempt: Failure["attempt"] = "error"): Failure {
    const pod = q.podInfo.pod;
    const current = this.currentPod(pod);
    if (current && !current.spec.nodeName) {
      q.podInfo.update(current);
      try { this.queue.addUnschedulableIfNotPresent(q, cycle); } catch { /* re-added meanwhile by an update */ }
      this.queue.nominator.addNominatedPod(current, nominatedNodeName);
    }
    return { kind: "failed", pod, error, reason, message: truncateMessage(error.message), nominatedNodeName, attempt };
  }
}
