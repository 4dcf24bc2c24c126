// The scheduler inside `kite up`: the same scheduler, its defaults, no ports of its own and no leader
// election (the data dir's lock already makes this process the only one), talking to the API server
// through the API with its own identity (a client certificate for system:kube-scheduler, which the
// bootstrap RBAC policy grants what it needs). Its client is not rate-limited (the controllers' and the node
// agent's in `kite up` are not either): the default 50 QPS / burst 100 of a standalone scheduler, kept there
// as upstream's, would cap a burst of new pods at 50 bindings a second in a process whose API server takes
// thousands (docs/PERFORMANCE.md, the kite up section).
import { embeddedClient, type EmbeddedTarget } from "../client/embedded.ts";
import type { Features } from "../features/featuregate.ts";
import { SCHEDULER_ARGS } from "./options/flags.ts";
import { schedulerOptions } from "./options/options.ts";
import { runScheduler } from "./run.ts";
import { SchedulerMetrics } from "./serving/metrics.ts";

const FLAGS = ["--leader-elect=false", "--secure-port=0", "--port=0"];

/** Runs until `signal` aborts. */
export function runEmbeddedScheduler(target: EmbeddedTarget, signal: AbortSignal, features?: Features): Promise<void> {
  const defaults: Record<string, unknown> = Object.fromEntries(Object.entries(SCHEDULER_ARGS).map(([k, v]) => [k, (v as { default?: unknown }).default]));
  const o = { ...schedulerOptions({ ...defaults, "leader-elect": false, "secure-port": "0", port: "0" }, FLAGS), features };
  const client = embeddedClient(target);
  return runScheduler(o, client, new SchedulerMetrics(), undefined, signal);
}
