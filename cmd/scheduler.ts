// kite scheduler: flags (and --config) → SchedulerOptions; pkg/scheduler does the work.
import { defineCommand } from "citty";
import { UsageError, exitWithError, strict } from "../pkg/cli/args.ts";
import { COMPONENT_ARGS, componentFlags } from "../pkg/cli/component-flags.ts";
import { writeConfigFile } from "../pkg/scheduler/config/file.ts";
import { SCHEDULER_ARGS } from "../pkg/scheduler/options/flags.ts";
import { PolicyNotSupported, type SchedulerOptions, schedulerOptions } from "../pkg/scheduler/options/options.ts";
import { SchedulerMetrics } from "../pkg/scheduler/serving/metrics.ts";
import { SchedulerServer } from "../pkg/scheduler/serving/server.ts";
import { reason } from "../pkg/serving/listen.ts";
import { runUntilSignal, startOrExit } from "./component.ts";

/** The options, or the one line that says why there are none: bad flags and configurations exit 2. */
function optionsOrExit(a: Record<string, any>, rawArgs: string[]): SchedulerOptions {
  try {
    return schedulerOptions(a, rawArgs);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    exitWithError(e instanceof PolicyNotSupported ? e.message : reason(e), 1);
  }
}

const ARGS = { ...SCHEDULER_ARGS, ...COMPONENT_ARGS };

export default defineCommand({
  meta: {
    name: "scheduler",
    description: "Assign pods to nodes: filter the nodes that can run each pod, rank them, bind the pod (upstream v1.21 kube-scheduler's flags and KubeSchedulerConfiguration v1beta1; legacy Policy files are not supported)",
  },
  args: ARGS,
  run: strict("scheduler", ARGS, async ({ args: a, rawArgs }: { args: Record<string, any>; rawArgs: string[] }) => {
    const features = componentFlags("scheduler", a, rawArgs);
    const o = { ...optionsOrExit(a, rawArgs), features };
    for (const w of o.warnings) console.error(`Warning: ${w}`);
    if (o.writeConfigTo) {
      await startOrExit(async () => writeConfigFile(o.writeConfigTo!, o.config));
      console.error(`Wrote configuration to: ${o.writeConfigTo}`);
      process.exit(0);
    }
    const metrics = new SchedulerMetrics();
    const server = new SchedulerServer(o.serving, metrics);
    const { runScheduler, schedulerClient } = await import("../pkg/scheduler/run.ts");
    const client = await startOrExit(() => schedulerClient(o));
    await startOrExit(() => server.start());
    for (const w of server.warnings) console.error(`Warning: ${w}`);
    // upstream exits when it loses the lease: a restart campaigns again
    await runUntilSignal((signal) => runScheduler(o, client, metrics, server, signal), "shutting down", () => server.stop());
  }),
});
