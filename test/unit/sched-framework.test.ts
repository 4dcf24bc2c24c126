// The framework runtime other plugins build on: filters with nominated pods (and the PreFilter
// AddPod extension preemption and inter-pod plugins rely on), score weighting and range checks,
// errors from plugins, selectors, and VolumeBinding's PreBind.
import { describe, expect, test } from "bun:test";
import {
  Code, CycleState, Framework, inTreeRegistry, labelSelector, NodeInfo, Nominator, PodInfo, Status, pluginNames as N,
  type Plugin, type PluginFactory,
} from "../../pkg/scheduler/index.ts";
import { FakeActions, FakeListers, makeNode, makePod } from "../helpers/sched-fixtures.ts";

/** A framework with the in-tree queue sort and binder plus these extra plugins at the given points. */
function frameworkWith(extra: Record<string, PluginFactory>, plugins: Record<string, { name: string; weight?: number }[]>, nominator = new Nominator(), listers = new FakeListers(), actions = new FakeActions()) {
  const registry = inTreeRegistry();
  for (const [k, f] of Object.entries(extra)) registry.set(k, f);
  return new Framework({
    profileName: "test", registry, nominator, listers, actions,
    plugins: { queueSort: [{ name: N.PrioritySort }], bind: [{ name: N.DefaultBinder }], ...plugins },
  });
}

describe("filters with nominated pods", () => {
  // Counts pods per node as the PreFilter state, updated by AddPod; fails nodes with 2 or more.
  const added: string[] = [];
  const counting: PluginFactory = () => ({
    name: "Count",
    preFilter(state: CycleState) { state.write("count", { n: 0, clone() { return { ...this }; } } as any); return null; },
    preFilterExtensions: () => ({
      addPod(state: CycleState, _pod: any, pi: PodInfo) { added.push(pi.pod.metadata.name!); (state.read("count") as any).n++; return null; },
      removePod(state: CycleState) { (state.read("count") as any).n--; return null; },
    }),
    filter(state: CycleState, _pod: any, ni: NodeInfo) {
      const n = (state.read("count") as any).n + ni.pods.length;
      return n >= 2 ? new Status(Code.Unschedulable, "too crowded") : null;
    },
  }) as Plugin;

  test("nominated pods of equal or higher priority count as on the node; the pod must fit with and without them", () => {
    const nominator = new Nominator();
    const fwk = frameworkWith({ Count: counting }, { preFilter: [{ name: "Count" }], filter: [{ name: "Count" }] }, nominator);
    const ni = new NodeInfo(makeNode("n"), makePod("resident", { nodeName: "n" }));
    const pod = makePod("p", { priority: 10 });
    nominator.addNominatedPod(makePod("lower", { priority: 5 }), "n");
    let state = new CycleState();
    fwk.runPreFilterPlugins(state, pod);
    expect(fwk.runFilterPluginsWithNominatedPods(state, pod, ni)).toBeNull();
    expect(added).toEqual([]);
    nominator.addNominatedPod(makePod("equal", { priority: 10 }), "n");
    state = new CycleState();
    fwk.runPreFilterPlugins(state, pod);
    const s = fwk.runFilterPluginsWithNominatedPods(state, pod, ni);
    expect(s?.reasons).toEqual(["too crowded"]);
    expect(s?.failedPlugin).toBe("Count");
    expect(added).toEqual(["equal"]);
    // The caller's state and node are untouched.
    expect((state.read("count") as any).n).toBe(0);
    expect(ni.pods.length).toBe(1);
  });
});

describe("scores", () => {
  const fixed = (name: string, byNode: Record<string, number>): PluginFactory => () => ({
    name, score: (_s: any, _p: any, ni: NodeInfo) => byNode[ni.name], scoreExtensions: () => null,
  }) as Plugin;
  const nodes = [new NodeInfo(makeNode("a")), new NodeInfo(makeNode("b"))];
  test("weighted and summed per node", () => {
    const fwk = frameworkWith({ X: fixed("X", { a: 10, b: 50 }), Y: fixed("Y", { a: 40, b: 0 }) }, { score: [{ name: "X", weight: 1 }, { name: "Y", weight: 3 }] });
    expect(fwk.runScorePlugins(new CycleState(), makePod("p"), nodes).scores).toEqual([{ name: "a", score: 130 }, { name: "b", score: 50 }]);
  });
  test("a plugin that cannot change the choice for this pod is not run", () => {
    let calls = 0;
    const skipping: PluginFactory = () => ({ name: "S", score: () => { calls++; return 100; }, scoreExtensions: () => null, scoreSkips: (p: any) => !p.metadata.labels }) as Plugin;
    const fwk = frameworkWith({ S: skipping }, { score: [{ name: "S" }] });
    expect(fwk.runScorePlugins(new CycleState(), makePod("p"), nodes).scores.map((s) => s.score)).toEqual([0, 0]);
    expect(calls).toBe(0);
    expect(fwk.runScorePlugins(new CycleState(), makePod("p", { labels: { a: "b" } }), nodes).scores.map((s) => s.score)).toEqual([100, 100]);
    expect(calls).toBe(2);
  });
  test("a score outside 0..100 is an error", () => {
    const fwk = frameworkWith({ X: fixed("X", { a: 101, b: 0 }) }, { score: [{ name: "X" }] });
    const r = fwk.runScorePlugins(new CycleState(), makePod("p"), nodes);
    expect(r.status?.code).toBe(Code.Error);
    expect(r.status?.message()).toContain('plugin "X" returns an invalid score 101, it should in the range of [0, 100] after normalizing');
  });
});

describe("plugin errors", () => {
  test("a filter that throws fails the cycle with an Error status naming it", () => {
    const fwk = frameworkWith({ Boom: () => ({ name: "Boom", filter() { throw new Error("kaput"); } }) as Plugin }, { filter: [{ name: "Boom" }] });
    const s = fwk.runFilterPlugins(new CycleState(), makePod("p"), new NodeInfo(makeNode("n")));
    expect(s?.code).toBe(Code.Error);
    expect(s?.message()).toBe('running "Boom" filter plugin for pod "p": kaput');
  });
});

describe("label selectors", () => {
  test.each([
    ["null matches nothing", null, { a: "1" }, false],
    ["{} matches everything", {}, {}, true],
    ["matchLabels", { matchLabels: { a: "1" } }, { a: "1", b: "2" }, true],
    ["matchLabels mismatch", { matchLabels: { a: "1" } }, { a: "2" }, false],
    ["In", { matchExpressions: [{ key: "a", operator: "In", values: ["1", "2"] }] }, { a: "2" }, true],
    ["NotIn matches a missing key", { matchExpressions: [{ key: "a", operator: "NotIn", values: ["1"] }] }, {}, true],
    ["Exists", { matchExpressions: [{ key: "a", operator: "Exists" }] }, { a: "" }, true],
    ["DoesNotExist", { matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, { a: "" }, false],
  ] as const)("%s", (_n, sel, labels, want) => expect(labelSelector(sel as any).matches(labels)).toBe(want));
  test("an unknown operator is a parse error on the PodInfo", () => {
    const pod = makePod("p", { spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchExpressions: [{ key: "a", operator: "Near" }] }, topologyKey: "z" }] } } } });
    expect(new PodInfo(pod).parseError?.message).toBe('"Near" is not a valid pod selector operator');
  });
  test("affinity terms default to the pod's namespace", () => {
    const pod = makePod("p", { ns: "team", spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "x" } }, topologyKey: "z" }] } } } });
    const pi = new PodInfo(pod);
    expect([...pi.requiredAntiAffinityTerms[0].namespaces]).toEqual(["team"]);
    expect(pi.hasRequiredAntiAffinity).toBe(true);
  });
});

describe("VolumeBinding PreBind", () => {
  test("writes the chosen node on claims waiting for their first consumer", async () => {
    const listers = new FakeListers();
    const actions = new FakeActions();
    listers.classes.set("wffc", { metadata: { name: "wffc" }, volumeBindingMode: "WaitForFirstConsumer" });
    listers.pvcs.set("default/data", { metadata: { name: "data", namespace: "default" }, spec: { storageClassName: "wffc" } });
    const fwk = frameworkWith({}, { preFilter: [{ name: N.VolumeBinding }], filter: [{ name: N.VolumeBinding }], preBind: [{ name: N.VolumeBinding }] }, new Nominator(), listers, actions);
    const pod = makePod("p", { spec: { volumes: [{ name: "v", persistentVolumeClaim: { claimName: "data" } }] } });
    const state = new CycleState();
    expect(fwk.runPreFilterPlugins(state, pod)).toBeNull();
    expect(await fwk.runPreBindPlugins(state, pod, "n1")).toBeNull();
    expect(actions.annotated).toEqual(["default/data volume.kubernetes.io/selected-node=n1"]);
  });
});
