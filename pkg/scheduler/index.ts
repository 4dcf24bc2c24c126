// The scheduling algorithm without I/O: the caller feeds the cache and queue from informers and
// publishes the outcomes through the API. Wiring, as upstream's event handlers do:
//   node added/updated/deleted   → cache.addNode/updateNode/removeNode; queue.moveAllToActiveOrBackoffQueue(event)
//                                  (on add and on updates that could help: allocatable, labels, taints, unschedulable)
//   bound pod added/updated      → cache.addPod/updatePod; queue.assignedPodAdded(pod)
//   bound pod deleted            → cache.removePod; queue.moveAllToActiveOrBackoffQueue("AssignedPodDelete")
//   pending pod of our profiles  → queue.add/update/delete
//   loop: q = await queue.pop(); out = scheduler.scheduleOne(q);
//         "scheduled" → scheduler.bind(out) (async) → "bound": Scheduled event | "failed": publish as below
//         "failed"    → FailedScheduling event (out.message) and PodScheduled=False
//                       (unscheduledCondition(out.reason, out.error.message)), status.nominatedNodeName
//   timers: queue.run(), cache.startCleanup()
//   metrics: SchedulerMetrics.pendingPods = () => queue.pendingCounts(); a failure's `attempt` is its result
export * from "./framework/index.ts";
export * from "./fit-error.ts";
export * from "./failure.ts";
export * from "./generic-scheduler.ts";
export * from "./profiles.ts";
export * from "./scheduler.ts";
export { SchedulerCache, DEFAULT_ASSUMED_POD_TTL_MS } from "./internal/cache.ts";
export { SchedulingQueue, DEFAULT_POD_INITIAL_BACKOFF_MS, DEFAULT_POD_MAX_BACKOFF_MS, UNSCHEDULABLE_Q_TIME_INTERVAL_MS } from "./internal/queue.ts";
export { Nominator } from "./internal/nominator.ts";
export { inTreeRegistry } from "./plugins/registry.ts";
export * as pluginNames from "./plugins/names.ts";
