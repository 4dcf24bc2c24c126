// The options every long-running program takes (apiserver, scheduler, node-agent, controller-manager,
// up): --feature-gates, the logging flags and the metrics flags. A command spreads COMPONENT_ARGS into
// its flag table and calls componentFlags first thing: bad values exit 2, logging and /metrics are set up.
import { consola } from "consola";
import { FEATURE_GATES_HELP, FeatureGateError, type Features, parseFeatureGates } from "../features/featuregate.ts";
import { configureLogging } from "../logs/logger.ts";
import { LOGGING_ARGS, parseLogging } from "../logs/options.ts";
import { METRICS_ARGS, configureMetrics, parseMetricsOptions } from "../metrics/options.ts";
import { UsageError, givenFlags, repeated } from "./args.ts";

export const COMPONENT_ARGS = {
  "feature-gates": { type: "string", description: FEATURE_GATES_HELP },
  ...LOGGING_ARGS,
  ...METRICS_ARGS,
} as const;

/** The --feature-gates values in order: every occurrence on the command line, else the one value in `a` (a config file's). */
function gateValues(a: Record<string, any>, rawArgs: string[]): string[] {
  const given = repeated(rawArgs, "feature-gates");
  return given.length ? given : [String(a["feature-gates"] ?? "")];
}

/** Every gate's value after these --feature-gates values; a bad one is a UsageError naming that value. */
export function parseGates(values: string[]): ReturnType<typeof parseFeatureGates> {
  for (const v of values) {
    try {
      parseFeatureGates([v]);
    } catch (e) {
      if (e instanceof FeatureGateError) throw new UsageError(`invalid argument "${v}" for "--feature-gates" flag: ${e.message}`);
      throw e;
    }
  }
  return parseFeatureGates(values);
}

/** Checks the shared flags of `program`, installs its logger and /metrics options; returns its gates. */
export function componentFlags(program: string, a: Record<string, any>, rawArgs: string[]): Features {
  const logging = parseLogging(a, rawArgs);
  const gates = parseGates(gateValues(a, rawArgs));
  const metrics = parseMetricsOptions(a, rawArgs);
  configureLogging(program, logging, givenFlags(rawArgs).has("v") || rawArgs.some((x) => /^-v(=|$)/.test(x)));
  configureMetrics(metrics);
  for (const w of gates.warnings) consola.warn(w);
  return gates.features;
}
