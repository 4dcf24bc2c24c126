// KubeSchedulerConfiguration v1beta1: upstream v1.21's defaults, strict decoding, validation messages, the
// plugins a profile runs, and the flag rules of `kite scheduler` (deprecated flags, --config, policies).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../../pkg/cli/args.ts";
import { SCHEDULER_ARGS } from "../../pkg/scheduler/options/flags.ts";
import { PolicyNotSupported, schedulerOptions } from "../../pkg/scheduler/options/options.ts";
import { decodeConfig } from "../../pkg/scheduler/config/decode.ts";
import { defaultConfig } from "../../pkg/scheduler/config/defaults.ts";
import { effectivePlugins } from "../../pkg/scheduler/config/plugins.ts";
import { validateConfig } from "../../pkg/scheduler/config/validation.ts";
import { tempDir } from "../helpers/processes.ts";

const DEFAULT_ARGS_NAMES = ["DefaultPreemption", "InterPodAffinity", "NodeAffinity", "NodeResourcesFit", "NodeResourcesLeastAllocated", "PodTopologySpread", "VolumeBinding"];

describe("defaulting", () => {
  test("an empty configuration gets upstream's v1beta1 defaults", () => {
    const c = defaultConfig({});
    expect(c).toMatchObject({
      apiVersion: "kubescheduler.config.k8s.io/v1beta1", kind: "KubeSchedulerConfiguration", parallelism: 16,
      leaderElection: { leaderElect: true, leaseDuration: "15s", renewDeadline: "10s", retryPeriod: "2s", resourceLock: "leases", resourceName: "kube-scheduler", resourceNamespace: "kube-system" },
      clientConnection: { kubeconfig: "", acceptContentTypes: "", contentType: "application/vnd.kubernetes.protobuf", qps: 50, burst: 100 },
      healthzBindAddress: "0.0.0.0:10251", metricsBindAddress: "0.0.0.0:10251",
      enableProfiling: true, enableContentionProfiling: true,
      percentageOfNodesToScore: 0, podInitialBackoffSeconds: 1, podMaxBackoffSeconds: 10, extenders: [],
    });
    expect(c.profiles.map((p) => p.schedulerName)).toEqual(["default-scheduler"]);
    expect(c.profiles[0].pluginConfig!.map((pc) => pc.name)).toEqual(DEFAULT_ARGS_NAMES);
    const args = Object.fromEntries(c.profiles[0].pluginConfig!.map((pc) => [pc.name, pc.args]));
    expect(args.DefaultPreemption).toEqual({ apiVersion: "kubescheduler.config.k8s.io/v1beta1", kind: "DefaultPreemptionArgs", minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    expect(args.InterPodAffinity).toMatchObject({ kind: "InterPodAffinityArgs", hardPodAffinityWeight: 1 });
    expect(args.NodeResourcesLeastAllocated).toMatchObject({ resources: [{ name: "cpu", weight: 1 }, { name: "memory", weight: 1 }] });
    expect(args.PodTopologySpread).toMatchObject({ defaultingType: "System" });
    expect(args.VolumeBinding).toMatchObject({ bindTimeoutSeconds: 600 });
    expect(validateConfig(c)).toEqual([]);
  });

  test("bind addresses: ':port' gets 0.0.0.0, a bare IP gets 10251, durations are written as Go writes them", () => {
    const c = defaultConfig({ healthzBindAddress: ":9999", metricsBindAddress: "127.0.0.1", leaderElection: { leaseDuration: "60000ms" } });
    expect([c.healthzBindAddress, c.metricsBindAddress, c.leaderElection.leaseDuration]).toEqual(["0.0.0.0:9999", "127.0.0.1:10251", "1m0s"]);
  });

  test("a profile's own plugin args are defaulted in place, the running plugins' missing ones appended; a disabled plugin gets none", () => {
    const c = defaultConfig({
      profiles: [{
        schedulerName: "packer",
        plugins: { score: { disabled: [{ name: "NodeResourcesLeastAllocated" }], enabled: [{ name: "NodeResourcesMostAllocated", weight: 2 }] } },
        pluginConfig: [{ name: "PodTopologySpread", args: { defaultConstraints: [{ maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "ScheduleAnyway" }] } }],
      }],
    });
    const names = c.profiles[0].pluginConfig!.map((pc) => pc.name);
    expect(names[0]).toBe("PodTopologySpread");
    expect(c.profiles[0].pluginConfig![0].args).toMatchObject({ kind: "PodTopologySpreadArgs", defaultingType: "List" });
    expect(names).toContain("NodeResourcesMostAllocated");
    expect(names).not.toContain("NodeResourcesLeastAllocated");
  });

  test("ClusterAutoscalerProvider scores with NodeResourcesMostAllocated instead of LeastAllocated", () => {
    const score = effectivePlugins("ClusterAutoscalerProvider", undefined).score.map((p) => p.name);
    expect(score).toContain("NodeResourcesMostAllocated");
    expect(score).not.toContain("NodeResourcesLeastAllocated");
    expect(effectivePlugins("DefaultProvider", { score: { disabled: [{ name: "*" }], enabled: [{ name: "ImageLocality", weight: 3 }] } }).score).toEqual([{ name: "ImageLocality", weight: 3 }]);
  });
});

describe("validation", () => {
  const errorsOf = (raw: Record<string, unknown>) => validateConfig(defaultConfig(raw));
  test.each([
    [{ leaderElection: { leaseDuration: "5s" } }, "leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than RenewDeadline"],
    [{ leaderElection: { resourceLock: "pods" } }, 'leaderElection.resourceLock: Unsupported value: "pods": supported values: "leases", "endpoints", "configmaps", "endpointsleases", "configmapsleases"'],
    [{ percentageOfNodesToScore: 101 }, "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"],
    [{ podInitialBackoffSeconds: 5, podMaxBackoffSeconds: 2 }, "podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds"],
    [{ parallelism: -1 }, "parallelism: Invalid value: -1: should be an integer value greater than zero"],
    [{ profiles: [{ schedulerName: "a" }, { schedulerName: "a" }] }, 'profiles[1].schedulerName: Duplicate value: "a"'],
    [{ profiles: [{ schedulerName: "a" }, {}] }, "profiles[1].schedulerName: Required value"],
    [{ profiles: [{ schedulerName: "a", pluginConfig: [{ name: "InterPodAffinity", args: { hardPodAffinityWeight: 101 } }] }] }, "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0-100]"],
    [{ profiles: [{ schedulerName: "a", pluginConfig: [{ name: "VolumeBinding", args: { bindTimeoutSeconds: -1 } }] }] }, "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value"],
    [{ profiles: [{ schedulerName: "a", pluginConfig: [{ name: "X" }, { name: "X" }] }] }, 'profiles[0].pluginConfig[1]: Duplicate value: "X"'],
    [{ profiles: [{ schedulerName: "a" }, { schedulerName: "b", plugins: { queueSort: { enabled: [{ name: "Other" }] } } }] }, 'profiles[1].plugins.queueSort: Invalid value: {"enabled":[{"name":"Other"}]}: has to match for all profiles'],
    [{ healthzBindAddress: "0.0.0.0:99999" }, 'healthzBindAddress: Invalid value: "0.0.0.0:99999": must be a valid port number'],
  ])("%j", (raw, message) => {
    expect(errorsOf(raw)).toContain(message);
  });
});

describe("strict decoding", () => {
  test.each([
    ["an unknown profile field", "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  foo: 1\n", 'strict decoding error: unknown field "profiles[0].foo"'],
    ["algorithmSource (not in v1beta1)", "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nalgorithmSource:\n  provider: DefaultProvider\n", 'strict decoding error: unknown field "algorithmSource"'],
    ["a string for an int", '{"apiVersion":"kubescheduler.config.k8s.io/v1beta1","kind":"KubeSchedulerConfiguration","parallelism":"8"}', 'strict decoding error: cannot unmarshal string into field "parallelism" of type int32'],
    ["a bad duration", "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nleaderElection:\n  leaseDuration: soon\n", 'strict decoding error: time: invalid duration "soon"'],
    ["an unknown field of a plugin's args", "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  pluginConfig:\n  - name: InterPodAffinity\n    args:\n      weight: 2\n", 'strict decoding error: unknown field "profiles[0].pluginConfig[0].args.weight"'],
    ["v1beta2 (not served by v1.21)", "apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\n", 'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta2"'],
    ["a repeated key", "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nparallelism: 1\nparallelism: 2\n", 'key "parallelism" already set in map'],
  ])("%s", (_label, text, message) => {
    expect(() => decodeConfig(text)).toThrow(message);
  });

  test("plugin args of an out-of-tree plugin are kept as given", () => {
    const o = decodeConfig("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  pluginConfig:\n  - name: MyPlugin\n    args: {anything: [1]}\n");
    expect(defaultConfig(o).profiles[0].pluginConfig![0]).toEqual({ name: "MyPlugin", args: { anything: [1] } });
  });
});

describe("flags", () => {
  const defaults = Object.fromEntries(Object.entries(SCHEDULER_ARGS).map(([k, v]) => [k, (v as { default?: unknown }).default]));
  /** schedulerOptions as citty calls it: defaults, then the flags given (`--name=value`, values as strings). */
  const run = (flags: Record<string, unknown>) => {
    const given = Object.fromEntries(Object.entries(flags).map(([k, v]) => [k, String(v)]));
    return schedulerOptions({ ...defaults, ...given }, Object.entries(given).map(([k, v]) => `--${k}=${v}`));
  };
  const dir = tempDir("kite-sched-config-");
  const file = (name: string, text: string) => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };
  const withPlugins = file("plugins.yaml", "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  plugins:\n    score:\n      disabled: [{name: ImageLocality}]\n");
  const plain = file("plain.yaml", "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  qps: 7\n");

  test("without --config the deprecated flags make the configuration, each with a warning", () => {
    const o = run({ "scheduler-name": "mine", "hard-pod-affinity-symmetric-weight": 5, "kube-api-qps": 20, port: 0, "leader-elect": false, "lock-object-name": "lk" });
    expect(o.config.profiles[0].schedulerName).toBe("mine");
    expect(o.config.profiles[0].pluginConfig!.find((pc) => pc.name === "InterPodAffinity")!.args).toMatchObject({ hardPodAffinityWeight: 5 });
    expect(o.config.clientConnection.qps).toBe(20);
    expect([o.config.healthzBindAddress, o.serving.insecure.healthz]).toEqual(["", undefined]);
    expect(o.leaderElection).toMatchObject({ leaderElect: false, resourceName: "lk", leaseDurationMs: 15000 });
    expect(o.warnings).toContain("Flag --scheduler-name has been deprecated, use a --config profile's schedulerName instead");
    expect(o.warnings.length).toBe(5); // every deprecated flag given but --leader-elect, which is not deprecated
  });

  test("with --config the file alone makes it; the flags it replaces are ignored, with a warning", () => {
    const o = run({ config: plain, "scheduler-name": "mine", "kube-api-qps": 20, "leader-elect-retry-period": "1s" });
    expect(o.config.profiles[0].schedulerName).toBe("default-scheduler");
    expect(o.config.clientConnection.qps).toBe(7);
    expect(o.config.leaderElection.retryPeriod).toBe("2s");
    expect(o.warnings).toContain(`Flag --leader-elect-retry-period is ignored: --config ${plain} is given`);
    expect(o.warnings).toContain(`Flag --kube-api-qps has been deprecated, use clientConnection.qps in --config instead; it is ignored: --config ${plain} is given`);
  });

  test("policy flags with a file's plugin configuration are refused; a policy alone is not supported", () => {
    expect(() => run({ config: withPlugins, "policy-config-file": "/p.json" })).toThrow(new UsageError("cannot set a Plugin config and Policy config"));
    expect(() => run({ config: withPlugins, "policy-configmap": "pol" })).toThrow(UsageError);
    expect(() => run({ config: plain, "policy-config-file": "/p.json" })).toThrow(PolicyNotSupported);
    expect(() => run({ "policy-configmap": "pol" })).toThrow("the scheduler Policy (ConfigMap kube-system/pol) is not supported");
    expect(() => run({ "use-legacy-policy-config": true })).toThrow("policyConfigFile: Required value: required when --use-legacy-policy-config is true");
    // the algorithm provider is no policy: it picks the profiles' plugins
    expect(run({ config: withPlugins, "algorithm-provider": "ClusterAutoscalerProvider" }).algorithmProvider).toBe("ClusterAutoscalerProvider");
  });

  test("serving options: ports, 0 turns a port off, delegated authentication and authorization defaults", () => {
    const o = run({ "secure-port": 0, "authorization-kubeconfig": "/k" });
    expect(o.serving.secure).toBeUndefined();
    expect(o.serving.insecure).toEqual({ healthz: { host: "0.0.0.0", port: 10251 }, metrics: { host: "0.0.0.0", port: 10251 } });
    expect(o.serving.authentication).toMatchObject({ skipLookup: false, tolerateLookupFailure: true, cacheTtlMs: 10_000, requestHeader: { usernameHeaders: ["x-remote-user"], groupHeaders: ["x-remote-group"], extraHeaderPrefixes: ["x-remote-extra-"] } });
    expect(o.serving.authorization).toEqual({ kubeconfig: "/k", alwaysAllowPaths: ["/healthz", "/readyz", "/livez"], authorizedTtlMs: 10_000, unauthorizedTtlMs: 10_000 });
    expect(run({}).serving.secure).toEqual({ host: "0.0.0.0", port: 10259, certDir: undefined, tlsCertFile: undefined, tlsPrivateKeyFile: undefined });
  });
});
