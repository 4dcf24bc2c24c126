// kite controller-manager: the controllers of upstream's kube-controller-manager as API clients — an
// addition to the spec's programs, so that controllers can run apart from `kite up`.
import { defineCommand } from "citty";
import { hostname } from "node:os";
import { readFileSync } from "node:fs";
import { bool, duration, int, strict, UsageError } from "../pkg/cli/args.ts";
import { COMPONENT_ARGS, componentFlags } from "../pkg/cli/component-flags.ts";
import { runUntilSignal, startOrExit } from "./component.ts";
import { commaList } from "../pkg/util/commalist.ts";

const ARGS = {
  kubeconfig: { type: "string", description: "Path to a kubeconfig file with authorization and master location information (default: $KUBECONFIG, then ~/.kube/config)." },
  master: { type: "string", description: "The address of the Kubernetes API server (overrides any value in kubeconfig)." },
  controllers: { type: "string", default: "*", description: "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'." },
  "concurrent-syncs": { type: "string", default: "5", description: "The number of objects each controller syncs at once (upstream's --concurrent-<kind>-syncs, one value for all)." },
  "max-endpoints-per-slice": { type: "string", default: "100", description: "The maximum number of endpoints that will be added to an EndpointSlice. More endpoints per slice will result in less endpoint slices, but larger resources. Defaults to 100." },
  "service-account-private-key-file": { type: "string", description: "Filename containing a PEM-encoded private RSA or ECDSA key used to sign service account tokens. Without it the serviceaccount-token controller does not run." },
  "root-ca-file": { type: "string", description: "If set, this root certificate authority will be included in service account's token secret. This must be a valid PEM-encoded CA bundle." },
  "terminated-pod-gc-threshold": { type: "string", default: "12500", description: "Number of terminated pods that can exist before the terminated pod garbage collector starts deleting terminated pods. If <= 0, the terminated pod garbage collector is disabled." },
  "use-service-account-credentials": { type: "boolean", default: false, description: "If true, use individual service account credentials for each controller." },
  "node-monitor-period": { type: "string", default: "5s", description: "The period for syncing NodeStatus in NodeController." },
  "node-monitor-grace-period": { type: "string", default: "40s", description: "Amount of time which we allow running Node to be unresponsive before marking it unhealthy. Must be N times more than kubelet's nodeStatusUpdateFrequency, where N means number of retries allowed for kubelet to post node status." },
  "node-startup-grace-period": { type: "string", default: "1m0s", description: "Amount of time which we allow starting Node to be unresponsive before marking it unhealthy." },
  "horizontal-pod-autoscaler-sync-period": { type: "string", default: "15s", description: "The period for syncing the number of pods in horizontal pod autoscaler." },
  "horizontal-pod-autoscaler-downscale-stabilization": { type: "string", default: "5m0s", description: "The period for which autoscaler will look backwards and not scale down below any recommendation it made during that period." },
  "horizontal-pod-autoscaler-tolerance": { type: "string", default: "0.1", description: "The minimum change (from 1.0) in the desired-to-actual metrics ratio for the horizontal pod autoscaler to consider scaling." },
  "horizontal-pod-autoscaler-cpu-initialization-period": { type: "string", default: "5m0s", description: "The period after pod start when CPU samples might be skipped." },
  "horizontal-pod-autoscaler-initial-readiness-delay": { type: "string", default: "30s", description: "The period after pod start during which readiness changes will be treated as initial readiness." },
  "leader-elect": { type: "boolean", default: true, description: "Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability." },
  "leader-elect-lease-duration": { type: "string", default: "15s", description: "The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot." },
  "leader-elect-renew-deadline": { type: "string", default: "10s", description: "The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than or equal to the lease duration." },
  "leader-elect-retry-period": { type: "string", default: "2s", description: "The duration the clients should wait between attempting acquisition and renewal of a leadership." },
  "leader-elect-resource-lock": { type: "string", default: "leases", description: "The type of resource object that is used for locking during leader election. Supported options are 'endpoints', 'configmaps', 'leases', 'endpointsleases' and 'configmapsleases'." },
  "leader-elect-resource-name": { type: "string", default: "kube-controller-manager", description: "The name of resource object that is used for locking during leader election." },
  "leader-elect-resource-namespace": { type: "string", default: "kube-system", description: "The namespace of resource object that is used for locking during leader election." },
  ...COMPONENT_ARGS,
} as const;

export default defineCommand({
  meta: {
    name: "controller-manager",
    description: "Run the cluster's controllers (upstream v1.21 kube-controller-manager's, as clients of the API server; an addition to the spec's programs so that they can run apart from `kite up`)",
  },
  args: ARGS,
  run: strict("controller-manager", ARGS, async ({ args: a, rawArgs }: { args: Record<string, any>; rawArgs: string[] }) => {
    componentFlags("controller-manager", a, rawArgs);
    const { CONTROLLERS } = await import("../pkg/controllers/table.ts");
    const { runControllers, selectControllers } = await import("../pkg/controllers/manager.ts");
    const spec = commaList(a.controllers);
    for (const s of spec) {
      const name = s.replace(/^-/, "");
      if (s !== "*" && !(name in CONTROLLERS)) throw new UsageError(`"${name}" is not in the list of known controllers`);
    }
    const workers = Number(a["concurrent-syncs"]);
    if (!Number.isInteger(workers) || workers < 1) throw new UsageError(`invalid argument "${a["concurrent-syncs"]}" for "--concurrent-syncs" flag: must be a positive integer`);
    const maxEndpointsPerSlice = Number(a["max-endpoints-per-slice"]);
    if (!/^\d+$/.test(a["max-endpoints-per-slice"]) || maxEndpointsPerSlice < 1 || maxEndpointsPerSlice > 1000) throw new UsageError(`invalid argument "${a["max-endpoints-per-slice"]}" for "--max-endpoints-per-slice" flag: max-endpoints-per-slice must be between 1 and 1000, inclusive`);
    const terminatedPodGCThreshold = int("terminated-pod-gc-threshold", String(a["terminated-pod-gc-threshold"]), -(2 ** 31), 2 ** 31 - 1);
    const leaderElect = bool("leader-elect", a["leader-elect"]);
    const timings = { leaseDurationMs: duration("leader-elect-lease-duration", a["leader-elect-lease-duration"]), renewDeadlineMs: duration("leader-elect-renew-deadline", a["leader-elect-renew-deadline"]), retryPeriodMs: duration("leader-elect-retry-period", a["leader-elect-retry-period"]) };
    const { Client } = await import("../pkg/client/client.ts");
    const { loadClientConfig } = await import("../pkg/client/kubeconfig.ts");
    const { Transport } = await import("../pkg/client/transport.ts");
    const client = await startOrExit(async () => new Client(new Transport(await loadClientConfig({ kubeconfig: a.kubeconfig || undefined, server: a.master || undefined }))));
    const rootCAFile: string = a["root-ca-file"] || "";
    const rootCA = await startOrExit(async () => {
      if (!rootCAFile) return client.config.ca;
      try { return readFileSync(rootCAFile, "utf8"); } catch (e) { throw new Error(`error reading root-ca-file at ${rootCAFile}: ${(e as Error).message}`); }
    });
    const keyFile: string = a["service-account-private-key-file"] || "";
    const { readSigningKey } = await import("../pkg/auth/serviceaccount-keys.ts");
    const serviceAccountKey = keyFile ? await startOrExit(async () => {
      try { return readSigningKey(keyFile); } catch (e) { throw new Error(`error reading key for service account token controller: ${(e as Error).message}`); }
    }) : undefined;
    const nodeMonitorPeriodMs = duration("node-monitor-period", a["node-monitor-period"]);
    if (nodeMonitorPeriodMs <= 0) throw new UsageError(`invalid argument "${a["node-monitor-period"]}" for "--node-monitor-period" flag: must be positive`);
    const nodeTimings = { nodeMonitorPeriodMs, nodeMonitorGracePeriodMs: duration("node-monitor-grace-period", a["node-monitor-grace-period"]), nodeStartupGracePeriodMs: duration("node-startup-grace-period", a["node-startup-grace-period"]) };
    const hpaSyncPeriodMs = duration("horizontal-pod-autoscaler-sync-period", a["horizontal-pod-autoscaler-sync-period"]);
    if (hpaSyncPeriodMs <= 0) throw new UsageError(`invalid argument "${a["horizontal-pod-autoscaler-sync-period"]}" for "--horizontal-pod-autoscaler-sync-period" flag: must be positive`);
    const tolerance = Number(a["horizontal-pod-autoscaler-tolerance"]);
    if (!/^\d*\.?\d+$/.test(String(a["horizontal-pod-autoscaler-tolerance"]))) throw new UsageError(`invalid argument "${a["horizontal-pod-autoscaler-tolerance"]}" for "--horizontal-pod-autoscaler-tolerance" flag: strconv.ParseFloat: parsing ${JSON.stringify(String(a["horizontal-pod-autoscaler-tolerance"]))}: invalid syntax`);
    const hpa = {
      syncPeriodMs: hpaSyncPeriodMs, tolerance,
      downscaleStabilizationMs: duration("horizontal-pod-autoscaler-downscale-stabilization", a["horizontal-pod-autoscaler-downscale-stabilization"]),
      cpuInitializationPeriodMs: duration("horizontal-pod-autoscaler-cpu-initialization-period", a["horizontal-pod-autoscaler-cpu-initialization-period"]),
      initialReadinessDelayMs: duration("horizontal-pod-autoscaler-initial-readiness-delay", a["horizontal-pod-autoscaler-initial-readiness-delay"]),
    };
    const options = { maxEndpointsPerSlice, serviceAccountKey, rootCA, terminatedPodGCThreshold, ...nodeTimings, hpa };
    const names = selectControllers(spec);
    const run = (signal: AbortSignal) => runControllers(client, names, workers, signal, options, bool("use-service-account-credentials", a["use-service-account-credentials"]));
    if (!leaderElect) return runUntilSignal(run, "stopping the controllers");
    const { runWhileLeading } = await import("../pkg/client/leaderelection.ts");
    const { newResourceLock } = await import("../pkg/client/resourcelock.ts");
    const lock = newResourceLock(a["leader-elect-resource-lock"], client, a["leader-elect-resource-namespace"], a["leader-elect-resource-name"], `${hostname()}_${crypto.randomUUID()}`);
    await runUntilSignal((signal) => runWhileLeading({ lock, ...timings }, run, signal), "stopping the controllers");
  }),
});
