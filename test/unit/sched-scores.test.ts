// The scheduler's scores, with values worked out from upstream v1.21's formulas: how each plugin
// ranks nodes after normalization (0..100).
import { describe, expect, test } from "bun:test";
import { NodeInfo, pluginNames as N, SchedulerCache, Snapshot, type Node, type Pod } from "../../pkg/scheduler/index.ts";
import { makeFramework, makeNode, makePod, plugin, runScore } from "../helpers/sched-fixtures.ts";

const node = (name: string, cpu: string, memory: string) => makeNode(name, { allocatable: { cpu, memory, pods: "110" } });
const infos = (...nodes: (Node | NodeInfo)[]) => nodes.map((n) => (n instanceof NodeInfo ? n : new NodeInfo(n)));
const scores = (name: string, pod: Pod, nodes: (Node | NodeInfo)[], args?: unknown) => runScore(plugin(name, args), pod, infos(...nodes));

const big = node("big", "4", "8Gi");
const small = node("small", "2", "8Gi");
const pod1 = makePod("p", { requests: { cpu: "1", memory: "2Gi" } });

describe("allocation scores", () => {
  test.each([
    ["LeastAllocated favors free room", N.NodeResourcesLeastAllocated, pod1, [big, small], undefined, [75, 62]],
    ["LeastAllocated counts 100m/200Mi for a pod without requests", N.NodeResourcesLeastAllocated, makePod("p"), [big], undefined, [97]],
    ["LeastAllocated counts the pods already there", N.NodeResourcesLeastAllocated, pod1, [new NodeInfo(big, makePod("a", { requests: { cpu: "2", memory: "2Gi" } }))], undefined, [37]],
    ["LeastAllocated with resource weights", N.NodeResourcesLeastAllocated, pod1, [small], { resources: [{ name: "cpu", weight: 3 }, { name: "memory", weight: 1 }] }, [56]],
    ["MostAllocated favors full nodes", N.NodeResourcesMostAllocated, pod1, [big, small], undefined, [25, 37]],
    ["BalancedAllocation favors equal cpu and memory fractions", N.NodeResourcesBalancedAllocation, pod1, [big, small], undefined, [100, 75]],
    ["BalancedAllocation gives 0 when a fraction reaches 1", N.NodeResourcesBalancedAllocation, makePod("p", { requests: { cpu: "4", memory: "1Gi" } }), [big], undefined, [0]],
    ["RequestedToCapacityRatio rising shape", N.RequestedToCapacityRatio, pod1, [big, small], { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] }, [25, 38]],
    ["RequestedToCapacityRatio falling shape", N.RequestedToCapacityRatio, pod1, [big, small], { shape: [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }] }, [75, 63]],
  ] as const)("%s", (_n, name, pod, nodes, args, want) => {
    expect(scores(name, pod, nodes as any, args)).toEqual(want as any);
  });
});

describe("NodeAffinity preferred", () => {
  const pod = makePod("p", {
    spec: {
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 2, preference: { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] } },
            { weight: 5, preference: { matchExpressions: [{ key: "disk", operator: "Exists" }] } },
          ],
        },
      },
    },
  });
  const both = makeNode("both", { labels: { zone: "a", disk: "ssd" } });
  const one = makeNode("one", { labels: { zone: "a" } });
  const none = makeNode("none");
  test("sums matching weights, scaled so the best is 100", () => {
    expect(scores(N.NodeAffinity, pod, [both, one, none])).toEqual([100, 28, 0]);
  });
  test("no preferences: every node 0", () => {
    expect(scores(N.NodeAffinity, makePod("p"), [both, none])).toEqual([0, 0]);
  });
  test("addedAffinity's preferred terms count for every pod", () => {
    const args = { addedAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] } }] } };
    expect(scores(N.NodeAffinity, makePod("p"), [one, none], args)).toEqual([100, 0]);
  });
});

describe("TaintToleration PreferNoSchedule", () => {
  const taints = (...keys: string[]) => ({ taints: keys.map((key) => ({ key, value: "v", effect: "PreferNoSchedule" })) });
  const nodes = [makeNode("clean"), makeNode("one", { spec: taints("a") }), makeNode("two", { spec: taints("a", "b") })];
  test("fewer untolerated taints score higher", () => {
    expect(scores(N.TaintToleration, makePod("p"), nodes)).toEqual([100, 50, 0]);
  });
  test("tolerated taints do not count", () => {
    const pod = makePod("p", { spec: { tolerations: [{ key: "a", operator: "Exists", effect: "PreferNoSchedule" }] } });
    expect(scores(N.TaintToleration, pod, nodes)).toEqual([100, 100, 0]);
  });
  test("a NoSchedule-only toleration does not tolerate PreferNoSchedule", () => {
    const pod = makePod("p", { spec: { tolerations: [{ key: "a", operator: "Exists", effect: "NoSchedule" }] } });
    expect(scores(N.TaintToleration, pod, nodes)).toEqual([100, 50, 0]);
  });
});

describe("ImageLocality", () => {
  const MB = 1024 * 1024;
  const cache = new SchedulerCache();
  cache.addNode(makeNode("has", { images: [{ names: ["nginx:latest"], sizeBytes: 300 * MB }, { names: ["big:1"], sizeBytes: 3000 * MB }] }));
  cache.addNode(makeNode("other", { images: [{ names: ["big:1"], sizeBytes: 3000 * MB }] }));
  cache.addNode(makeNode("bare"));
  const snapshot = new Snapshot();
  cache.updateSnapshot(snapshot);
  const fwk = makeFramework();
  fwk.setSnapshot(snapshot);
  const pl = plugin(N.ImageLocality, undefined, fwk);
  const withImage = (image: string) => makePod("p", { spec: { containers: [{ name: "c", image }] } });
  const run = (pod: Pod) => runScore(pl, pod, ["has", "other", "bare"].map((n) => snapshot.get(n)!));
  test("an image on one node of three, scaled by its spread", () => {
    // 300MB × 1/3 = 100MB: 100 × (100 - 23) / (1000 - 23)
    expect(run(withImage("nginx"))).toEqual([7, 0, 0]);
  });
  test("large images cap at the per-container threshold", () => {
    // 3000MB × 2/3 = 2000MB, capped at 1000MB
    expect(run(withImage("big:1"))).toEqual([100, 100, 0]);
  });
  test("an image nobody has", () => {
    expect(run(withImage("redis"))).toEqual([0, 0, 0]);
  });
});

describe("NodePreferAvoidPods", () => {
  const avoid = JSON.stringify({ preferAvoidPods: [{ podSignature: { podController: { kind: "ReplicaSet", uid: "rs-1" } } }] });
  const n = makeNode("avoid");
  n.metadata.annotations = { "scheduler.alpha.kubernetes.io/preferAvoidPods": avoid };
  const owned = (uid: string, kind = "ReplicaSet") => {
    const p = makePod("p");
    p.metadata.ownerReferences = [{ kind, uid, controller: true, name: "x", apiVersion: "apps/v1" }];
    return p;
  };
  test.each([
    ["pod of the named ReplicaSet", owned("rs-1"), [0, 100]],
    ["pod of another ReplicaSet", owned("rs-2"), [100, 100]],
    ["pod of a StatefulSet", owned("rs-1", "StatefulSet"), [100, 100]],
    ["pod without owner", makePod("p"), [100, 100]],
  ] as const)("%s", (_n, pod, want) => expect(scores(N.NodePreferAvoidPods, pod, [n, makeNode("free")])).toEqual(want as any));
});
