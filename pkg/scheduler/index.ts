// The scheduling algorithm without I/O: the caller feeds the cache and queue from informers and
// publishes the outcomes through the API.
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
