// Profiles from KubeSchedulerConfiguration v1beta1: the algorithm provider's plugins and weights,
// merged with each profile's disabled ("*" for all) and enabled plugins, pluginConfig args, and the
// errors upstream gives for unknown plugins and conflicting profiles.
import { describe, expect, test } from "bun:test";
import {
  buildProfiles, inTreeRegistry, Nominator, pluginNames as N, type ProfilesConfig, type Registry,
} from "../../pkg/scheduler/index.ts";
import { defaultConfig } from "../../pkg/scheduler/config/defaults.ts";
import { FakeActions, FakeListers, makeNode, makePod, runFilter } from "../helpers/sched-fixtures.ts";
import { NodeInfo } from "../../pkg/scheduler/index.ts";

const build = (config: ProfilesConfig, registry: Registry = inTreeRegistry(), provider?: "DefaultProvider" | "ClusterAutoscalerProvider") =>
  buildProfiles(config, { registry, nominator: new Nominator(), listers: new FakeListers(), actions: new FakeActions(), provider });

describe("defaults", () => {
  const fwk = build({}).get("default-scheduler")!;
  test("one default-scheduler profile when none is configured", () => {
    expect([...build({}).keys()]).toEqual(["default-scheduler"]);
  });
  test("upstream's v1beta1 defaults", () => {
    expect(fwk.pluginNames("filter")).toEqual([
      N.NodeUnschedulable, N.NodeName, N.TaintToleration, N.NodeAffinity, N.NodePorts, N.NodeResourcesFit, N.VolumeRestrictions,
      N.EBSLimits, N.GCEPDLimits, N.NodeVolumeLimits, N.AzureDiskLimits, N.VolumeBinding, N.VolumeZone, N.PodTopologySpread,
      N.InterPodAffinity,
    ]);
    expect(fwk.pluginNames("preFilter")).toEqual([N.NodeResourcesFit, N.NodePorts, N.PodTopologySpread, N.InterPodAffinity, N.VolumeBinding]);
    expect(fwk.pluginNames("postFilter")).toEqual([N.DefaultPreemption]);
    expect(fwk.pluginNames("score")).toEqual([
      N.NodeResourcesBalancedAllocation, N.ImageLocality, N.InterPodAffinity, N.NodeResourcesLeastAllocated, N.NodeAffinity,
      N.NodePreferAvoidPods, N.PodTopologySpread, N.TaintToleration,
    ]);
    expect(fwk.scoreWeights).toEqual([1, 1, 1, 1, 1, 10000, 2, 1]);
    expect(fwk.pluginNames("bind")).toEqual([N.DefaultBinder]);
  });
  test("ClusterAutoscalerProvider packs nodes: MostAllocated instead of LeastAllocated", () => {
    const f = build({}, inTreeRegistry(), "ClusterAutoscalerProvider").get("default-scheduler")!;
    expect(f.pluginNames("score")).toContain(N.NodeResourcesMostAllocated);
    expect(f.pluginNames("score")).not.toContain(N.NodeResourcesLeastAllocated);
  });
  test("plugins registered later join the defaults", () => {
    const registry = inTreeRegistry();
    registry.set(N.PodTopologySpread, () => ({ name: N.PodTopologySpread, preFilter: () => null, preFilterExtensions: () => null, filter: () => null, preScore: () => null, score: () => 0, scoreExtensions: () => null }) as any);
    const f = build({}, registry).get("default-scheduler")!;
    expect(f.pluginNames("filter")).toContain(N.PodTopologySpread);
    expect(f.scoreWeights[f.pluginNames("score").indexOf(N.PodTopologySpread)]).toBe(2);
  });
});

describe("merging", () => {
  const filters = (plugins: object) => build({ profiles: [{ schedulerName: "s", plugins }] }).get("s")!.pluginNames("filter");
  test.each([
    ["disable one", { filter: { disabled: [{ name: N.TaintToleration }] } }, (f: string[]) => !f.includes(N.TaintToleration) && f.includes(N.NodeName)],
    ["'*' disables all defaults", { filter: { disabled: [{ name: "*" }], enabled: [{ name: N.NodeName }] } }, (f: string[]) => f.join() === N.NodeName],
    ["re-enabling a disabled default moves it last", { filter: { disabled: [{ name: N.NodeName }], enabled: [{ name: N.NodeName }] } }, (f: string[]) => f[f.length - 1] === N.NodeName],
  ] as const)("%s", (_n, plugins, ok) => expect(ok(filters(plugins))).toBe(true));

  test("a profile's weights and pluginConfig args take effect", () => {
    const fwk = build({
      profiles: [{
        schedulerName: "packer",
        plugins: {
          score: { disabled: [{ name: N.NodeResourcesLeastAllocated }], enabled: [{ name: N.NodeResourcesMostAllocated, weight: 5 }] },
          filter: { disabled: [{ name: N.TaintToleration }] },
        },
        pluginConfig: [{ name: N.NodeResourcesFit, args: { ignoredResources: ["example.com/gpu"] } }],
      }],
    }).get("packer")!;
    const score = fwk.pluginNames("score");
    expect(score).not.toContain(N.NodeResourcesLeastAllocated);
    expect(fwk.scoreWeights[score.indexOf(N.NodeResourcesMostAllocated)]).toBe(5);
    expect(fwk.pluginNames("filter")).not.toContain(N.TaintToleration);
    const fit = fwk.filter.find((p) => p.name === N.NodeResourcesFit)!;
    const pod = makePod("p", { requests: { "example.com/gpu": "1" } });
    expect(runFilter(fit, pod, new NodeInfo(makeNode("n")))).toBeNull();
  });

  test("the defaulted configuration of kite scheduler builds (every plugin's args filled in)", () => {
    const config = defaultConfig({ profiles: [{ schedulerName: "a" }, { schedulerName: "b", plugins: { score: { enabled: [{ name: N.RequestedToCapacityRatio, weight: 2 }] } }, pluginConfig: [{ name: N.RequestedToCapacityRatio, args: { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] } }] }] });
    const m = build(config);
    expect([...m.keys()]).toEqual(["a", "b"]);
    expect(m.get("b")!.pluginNames("score")).toContain(N.RequestedToCapacityRatio);
  });
  test("several profiles, one framework each", () => {
    const m = build({ profiles: [{ schedulerName: "default-scheduler" }, { schedulerName: "no-scoring", plugins: { score: { disabled: [{ name: "*" }] } } }] });
    expect([...m.keys()]).toEqual(["default-scheduler", "no-scoring"]);
    expect(m.get("no-scoring")!.pluginNames("score")).toEqual([]);
  });
});

describe("errors", () => {
  test.each([
    ["an unknown plugin", { profiles: [{ schedulerName: "s", plugins: { filter: { enabled: [{ name: "Foo" }] } } }] }, 'creating profile for scheduler name s: FilterPlugin "Foo" does not exist'],
    ["a plugin at a point it does not extend", { profiles: [{ schedulerName: "s", plugins: { score: { enabled: [{ name: N.NodeName }] } } }] }, 'creating profile for scheduler name s: plugin "NodeName" does not extend ScorePlugin plugin'],
    ["a plugin enabled twice", { profiles: [{ schedulerName: "s", plugins: { filter: { enabled: [{ name: N.NodeName }] } } }] }, 'creating profile for scheduler name s: plugin "NodeName" already registered as "FilterPlugin"'],
    ["no queue sort", { profiles: [{ schedulerName: "s", plugins: { queueSort: { disabled: [{ name: "*" }] } } }] }, "creating profile for scheduler name s: no queue sort plugin is enabled"],
    ["no bind plugin", { profiles: [{ schedulerName: "s", plugins: { bind: { disabled: [{ name: "*" }] } } }] }, "creating profile for scheduler name s: at least one bind plugin is needed"],
    ["bad plugin args", { profiles: [{ schedulerName: "s", plugins: { score: { enabled: [{ name: N.RequestedToCapacityRatio }] } } }] }, 'creating profile for scheduler name s: initializing plugin "RequestedToCapacityRatio": at least one point must be specified'],
    ["a bad addedAffinity", { profiles: [{ schedulerName: "s", pluginConfig: [{ name: N.NodeAffinity, args: { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "a", operator: "Gt", values: ["x"] }] }] } } } }] }] }, 'creating profile for scheduler name s: initializing plugin "NodeAffinity": parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: for \'Gt\', \'Lt\' operators, the value must be an integer'],
    ["duplicate scheduler names", { profiles: [{ schedulerName: "s" }, { schedulerName: "s" }] }, 'duplicate profile with scheduler name "s"'],
  ] as const)("%s", (_n, config, message) => {
    expect(() => build(config as any)).toThrow(message);
  });
});
