// The scheduling loop (upstream's Scheduler.Run / scheduleOne caller): pop a pod, run its scheduling cycle,
// bind it in the background, and publish what happened through the API — the Scheduled or FailedScheduling
// event, the PodScheduled=False condition and status.nominatedNodeName — and to the metrics.
import type { Client } from "../client/client.ts";
import { log } from "../client/log.ts";
import { RESOURCES } from "../client/resources.ts";
import { rfc3339 } from "../client/time.ts";
import type { EventRecorder } from "../client/events.ts";
import type { Pod } from "./framework/index.ts";
import { EVENT_FAILED_SCHEDULING, EVENT_SCHEDULED, unscheduledCondition } from "./failure.ts";
import type { SchedulingQueue } from "./internal/queue.ts";
import { DEFAULT_SCHEDULER_NAME } from "./profiles.ts";
import type { Bound, Failure, Scheduler } from "./scheduler.ts";
import type { SchedulerMetrics } from "./serving/metrics.ts";

/** Bindings in flight at once: past this the loop waits, so a slow API server slows the scheduler down. */
const MAX_BINDING = 128;
/** The loop gives the event loop a turn after this long, so watches and answers are read in between. */
const SLICE_MS = 5;

export interface LoopDeps {
  client: Client;
  scheduler: Scheduler;
  queue: SchedulingQueue;
  metrics: SchedulerMetrics;
  /** The recorder of a pod's profile. */
  recorder(pod: Pod): EventRecorder;
  /** The pod as the informer has it now (undefined once deleted). */
  currentPod(pod: Pod): Pod | undefined;
}

const profileOf = (pod: Pod) => pod.spec.schedulerName || DEFAULT_SCHEDULER_NAME;
const seconds = (since: number) => (performance.now() - since) / 1000;
const turn = () => new Promise<void>((r) => setImmediate(r));

export async function schedulingLoop(d: LoopDeps, signal: AbortSignal): Promise<void> {
  let binding = 0;
  let bindingDone: (() => void) | undefined;
  let sliceStart = performance.now();
  signal.addEventListener("abort", () => d.queue.close(), { once: true });
  while (!signal.aborted) {
    const q = await d.queue.pop();
    if (!q) break;
    const start = performance.now();
    const out = d.scheduler.scheduleOne(q);
    if (out.kind === "failed") void publishFailure(d, out, start);
    else if (out.kind === "scheduled") {
      binding++;
      void d.scheduler.bind(out).then((r) => (r.kind === "bound" ? publishBound(d, r, start) : publishFailure(d, r, start)), (e) => log(`binding ${out.assumedPod.metadata.name}: ${(e as Error).message}`)).finally(() => {
        binding--;
        bindingDone?.();
      });
      while (binding >= MAX_BINDING) await new Promise<void>((r) => { bindingDone = r; });
    }
    if (performance.now() - sliceStart > SLICE_MS) {
      await turn();
      sliceStart = performance.now();
    }
  }
}

function publishBound(d: LoopDeps, b: Bound, start: number) {
  d.metrics.attempt("scheduled", profileOf(b.pod), seconds(start));
  d.recorder(b.pod).event(b.pod, undefined, "Normal", EVENT_SCHEDULED, "Binding", b.message);
}

/**
 * The FailedScheduling event, then the PodScheduled=False condition and the nominated node, written only
 * when they change (upstream's updatePod), and only for a pod that still exists unbound.
 */
async function publishFailure(d: LoopDeps, f: Failure, start: number) {
  d.metrics.attempt(f.attempt, profileOf(f.pod), seconds(start));
  d.recorder(f.pod).event(f.pod, undefined, "Warning", EVENT_FAILED_SCHEDULING, "Scheduling", f.message);
  const pod = d.currentPod(f.pod);
  if (!pod || pod.spec.nodeName) return;
  const cond = unscheduledCondition(f.reason, f.error.message);
  const old = (pod.status?.conditions as Record<string, unknown>[] | undefined)?.find((c) => c.type === "PodScheduled");
  const same = old && old.status === cond.status && old.reason === cond.reason && old.message === cond.message;
  const nominate = f.nominatedNodeName && f.nominatedNodeName !== pod.status?.nominatedNodeName;
  if (same && !nominate) return;
  const status: Record<string, unknown> = {
    conditions: [{ ...cond, lastProbeTime: null, lastTransitionTime: old?.status === cond.status ? old.lastTransitionTime : rfc3339(new Date()) }],
  };
  if (nominate) status.nominatedNodeName = f.nominatedNodeName;
  try {
    await d.client.patch(RESOURCES.pods, pod.metadata.name!, { status }, "strategic", { namespace: pod.metadata.namespace, subresource: "status" });
  } catch (e) {
    log(`updating the PodScheduled condition of ${pod.metadata.namespace}/${pod.metadata.name}: ${(e as Error).message}`);
  }
}
