// PodTopologySpread: the skew filter (DoNotSchedule), its PreFilter extensions, the spread score
// (ScheduleAnyway) and the default constraints, on snapshots built with the framework's own types.
import { describe as group, expect, test } from "bun:test";
import { CycleState, type Labels, type Pod, type TopologySpreadConstraint } from "../../pkg/scheduler/index.ts";
import { env, filterAll, node, pod, scoresOf, TestListers, zone } from "../helpers/sched-adv-fixtures.ts";

const NOT_MATCH = "2: node(s) didn't match pod topology spread constraints";
const MISSING = "3: node(s) didn't match pod topology spread constraints (missing required label)";
const ZONE = "topology.kubernetes.io/zone";
const HOST = "kubernetes.io/hostname";

const web = { app: "web" };
const spread = (key: string, maxSkew: number, when = "DoNotSchedule", labels: Labels = web): TopologySpreadConstraint =>
  ({ topologyKey: key, maxSkew, whenUnsatisfiable: when, labelSelector: { matchLabels: labels } });
const incoming = (constraints: TopologySpreadConstraint[], extra: Partial<Pod["spec"]> = {}, labels: Labels = web) =>
  pod("incoming", { labels, spec: { topologySpreadConstraints: constraints, ...extra } });
/** n pods labelled app=web on the node. */
const webPods = (nodeName: string, n: number, o: { ns?: string; terminating?: boolean; labels?: Labels } = {}) =>
  Array.from({ length: n }, (_, i) => pod(`${nodeName}-${i}`, { node: nodeName, labels: o.labels ?? web, ns: o.ns, terminating: o.terminating }));

// zone a: a1 (2 web pods), a2 (0); zone b: b1 (1), b2 (0)
const twoZones = () => [node("a1", zone("a")), node("a2", zone("a")), node("b1", zone("b")), node("b2", zone("b"))];
const twoZonePods = () => [...webPods("a1", 2), ...webPods("b1", 1)];

group("PodTopologySpread filter", () => {
  const cases: { name: string; pods: Pod[]; nodes: ReturnType<typeof node>[]; pod: Pod; want: Record<string, string> }[] = [
    {
      name: "zone skew: the zone with more matching pods is full at maxSkew 1",
      pods: twoZonePods(), nodes: twoZones(), pod: incoming([spread(ZONE, 1)]),
      want: { a1: NOT_MATCH, a2: NOT_MATCH, b1: "", b2: "" },
    },
    {
      name: "maxSkew 2 admits the fuller zone",
      pods: twoZonePods(), nodes: twoZones(), pod: incoming([spread(ZONE, 2)]),
      want: { a1: "", a2: "", b1: "", b2: "" },
    },
    {
      name: "a pod its own selector does not match adds nothing to the skew",
      pods: twoZonePods(), nodes: twoZones(), pod: incoming([spread(ZONE, 1)], {}, { app: "other" }),
      want: { a1: "", a2: "", b1: "", b2: "" },
    },
    {
      name: "a node without the topology key cannot take the pod",
      pods: [], nodes: [node("a1", zone("a")), node("nolabel")], pod: incoming([spread(ZONE, 1)]),
      want: { a1: "", nolabel: MISSING },
    },
    {
      name: "pods of other namespaces and terminating pods are not counted",
      pods: [...webPods("a1", 2, { ns: "other" }), ...webPods("a2", 2, { terminating: true }), ...webPods("b1", 1)],
      nodes: twoZones(), pod: incoming([spread(ZONE, 1)]),
      want: { a1: "", a2: "", b1: NOT_MATCH, b2: NOT_MATCH },
    },
    {
      name: "pods the selector does not match are not counted",
      pods: [...webPods("a1", 3, { labels: { app: "db" } }), ...webPods("b1", 1)],
      nodes: twoZones(), pod: incoming([spread(ZONE, 1)]),
      want: { a1: "", a2: "", b1: NOT_MATCH, b2: NOT_MATCH },
    },
    {
      name: "only domains of nodes passing the pod's nodeSelector count: an empty zone c it cannot use is no minimum",
      pods: twoZonePods(),
      nodes: [...twoZones().map((n) => ({ ...n, metadata: { ...n.metadata, labels: { ...n.metadata.labels, pool: "x" } } })), node("c1", zone("c"))],
      pod: incoming([spread(ZONE, 1)], { nodeSelector: { pool: "x" } }),
      want: { a1: NOT_MATCH, a2: NOT_MATCH, b1: "", b2: "", c1: "3: node(s) didn't match Pod's node affinity" },
    },
    {
      name: "hostname and zone together: each constraint must hold",
      pods: twoZonePods(), nodes: twoZones(), pod: incoming([spread(ZONE, 1), spread(HOST, 1)]),
      want: { a1: NOT_MATCH, a2: NOT_MATCH, b1: NOT_MATCH, b2: "" },
    },
    {
      name: "ScheduleAnyway constraints never filter",
      pods: twoZonePods(), nodes: [...twoZones(), node("nolabel")], pod: incoming([spread(ZONE, 1, "ScheduleAnyway")]),
      want: { a1: "", a2: "", b1: "", b2: "", nolabel: "" },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(filterAll(env(c.pods, c.nodes), c.pod).results).toEqual(c.want);
    });
  }

  test("AddPod and RemovePod move a domain's count, on a copy of the state", () => {
    const e = env(twoZonePods(), twoZones());
    const p = incoming([spread(ZONE, 1)]);
    const { state } = filterAll(e, p);
    const b2 = e.snapshot.get("b2")!;
    const a1 = e.snapshot.get("a1")!;
    const copy = state.clone();
    // Zone b gets a second web pod: both zones have 2, so any node takes a third.
    const added = b2.clone();
    const extra = pod("extra", { node: "b2", labels: web });
    added.addPod(extra);
    expect(e.fwk.runPreFilterExtensionAddPod(copy, p, added.pods[added.pods.length - 1], added)).toBeNull();
    expect(e.fwk.runFilterPlugins(copy, p, a1)).toBeNull();
    // Removing a pod of zone a instead makes zone a (1) no fuller than b (1) in the original state's copy.
    const copy2 = state.clone();
    expect(e.fwk.runPreFilterExtensionRemovePod(copy2, p, a1.pods[0], a1)).toBeNull();
    expect(e.fwk.runFilterPlugins(copy2, p, a1)).toBeNull();
    // The original state is untouched.
    expect(e.fwk.runFilterPlugins(state, p, a1)?.message()).toBe("node(s) didn't match pod topology spread constraints");
  });

  test("hostname domains: AddPod on one node raises the minimum another node is measured against", () => {
    const e = env(webPods("n0", 1), [node("n0"), node("n1")]);
    const p = incoming([spread(HOST, 1)]);
    const { state, results } = filterAll(e, p);
    expect(results).toEqual({ n0: NOT_MATCH, n1: "" });
    const n1 = e.snapshot.get("n1")!.clone();
    n1.addPod(pod("extra", { node: "n1", labels: web }));
    expect(e.fwk.runPreFilterExtensionAddPod(state, p, n1.pods[0], n1)).toBeNull();
    expect(e.fwk.runFilterPlugins(state, p, e.snapshot.get("n0")!)).toBeNull();
    expect(e.fwk.runFilterPlugins(state, p, n1)).toBeNull();
  });

  test("a pod of another namespace added to a node changes nothing", () => {
    const e = env(twoZonePods(), twoZones());
    const p = incoming([spread(ZONE, 1)]);
    const { state } = filterAll(e, p);
    const b2 = e.snapshot.get("b2")!.clone();
    b2.addPod(pod("other-ns", { node: "b2", labels: web, ns: "other" }));
    e.fwk.runPreFilterExtensionAddPod(state, p, b2.pods[0], b2);
    expect(e.fwk.runFilterPlugins(state, p, e.snapshot.get("a1")!)).not.toBeNull();
  });
});

group("PodTopologySpread score", () => {
  const PTS = "PodTopologySpread";
  test("hostname: fewer matching pods scores higher (log-weighted, then inverted)", () => {
    const nodes = [node("n0"), node("n1"), node("n2")];
    const e = env([...webPods("n1", 1), ...webPods("n2", 2)], nodes);
    // weight ln(5): counts 0, 1, 2 score 0, 1, 3; inverted against the max 3.
    expect(scoresOf(e, PTS, incoming([spread(HOST, 1, "ScheduleAnyway")]))).toEqual({ n0: 100, n1: 66, n2: 0 });
  });

  test("zone: nodes share their zone's count; a node without the key scores 0", () => {
    const nodes = [node("a1", zone("a")), node("a2", zone("a")), node("b1", zone("b")), node("x")];
    const e = env([...webPods("a1", 2), ...webPods("a2", 1)], nodes);
    // weight ln(4): zone a has 3 → 4, zone b 0 → 0.
    expect(scoresOf(e, PTS, incoming([spread(ZONE, 1, "ScheduleAnyway")]))).toEqual({ a1: 0, a2: 0, b1: 100, x: 0 });
  });

  test("maxSkew adds a constant that narrows the spread of scores", () => {
    const nodes = [node("n0"), node("n1")];
    const e = env(webPods("n1", 2), nodes);
    // ln(4)·count + 4: n0 → 4, n1 → 6; (6 + 4 - s) / 6.
    expect(scoresOf(e, PTS, incoming([spread(HOST, 5, "ScheduleAnyway")]))).toEqual({ n0: 100, n1: 66 });
  });

  test("a pod without constraints (and no owners) scores every node the same", () => {
    const e = env(webPods("n1", 2), [node("n0"), node("n1")]);
    expect(scoresOf(e, PTS, pod("plain", { labels: web }))).toEqual({ n0: 100, n1: 100 });
  });

  test("only the filtered nodes' domains are scored; pods on other nodes of those domains count", () => {
    const nodes = [node("a1", zone("a")), node("a2", zone("a")), node("b1", zone("b"))];
    const e = env([...webPods("a2", 3)], nodes);
    const filtered = [e.snapshot.get("a1")!, e.snapshot.get("b1")!];
    expect(scoresOf(e, PTS, incoming([spread(ZONE, 1, "ScheduleAnyway")]), filtered)).toEqual({ a1: 0, b1: 100 });
  });
});

group("PodTopologySpread default constraints", () => {
  const owned = (listers: TestListers) => {
    listers.owners.set("incoming", [{ matchLabels: { app: "web" } }, { matchExpressions: [{ key: "tier", operator: "Exists" }] }]);
    return listers;
  };
  const labelled = { app: "web", tier: "front" };
  const nodes = () => [node("a1", zone("a")), node("a2", zone("a")), node("b1", zone("b"))];
  const pods = () => [...webPods("a1", 2, { labels: labelled }), ...webPods("b1", 1, { labels: { app: "web" } })];

  test("System defaulting spreads a pod its owners select by host and zone, softly", () => {
    const e = env(pods(), nodes(), {}, owned(new TestListers()));
    const p = pod("incoming", { labels: labelled });
    expect(filterAll(e, p).results).toEqual({ a1: "", a2: "", b1: "" });
    // Pods matching both owners' selectors: a1 has 2, zone a 2, zone b 0 (b1's pod lacks tier).
    // hostname ln(5)·n + 2, zone ln(4)·n + 4: a1 → 3.22+2+2.77+4 = 11, a2 → 8, b1 → 6.
    expect(scoresOf(e, "PodTopologySpread", p)).toEqual({ a1: 54, a2: 81, b1: 100 });
  });

  test("without owners the defaults do not apply", () => {
    const e = env(pods(), nodes());
    expect(scoresOf(e, "PodTopologySpread", pod("incoming", { labels: labelled }))).toEqual({ a1: 100, a2: 100, b1: 100 });
  });

  test("List defaulting with a DoNotSchedule default filters", () => {
    const profile = {
      pluginConfig: [{ name: "PodTopologySpread", args: { defaultingType: "List", defaultConstraints: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: "DoNotSchedule" }] } }],
    };
    const e = env(pods(), nodes(), profile, owned(new TestListers()));
    expect(filterAll(e, pod("incoming", { labels: labelled })).results).toEqual({ a1: NOT_MATCH, a2: NOT_MATCH, b1: "" });
  });

  test("a pod's own constraints replace the defaults", () => {
    const e = env(pods(), nodes(), {}, owned(new TestListers()));
    const p = incoming([spread(HOST, 1, "DoNotSchedule", labelled)], {}, labelled);
    expect(filterAll(e, p).results).toEqual({ a1: NOT_MATCH, a2: "", b1: "" });
  });
});

test("Filter without its PreFilter state is an internal error", () => {
  const e = env([], [node("n0")]);
  const pl = e.fwk.filter.find((p) => p.name === "PodTopologySpread")!;
  expect(() => pl.filter(new CycleState(), incoming([spread(ZONE, 1)]), e.snapshot.get("n0")!))
    .toThrow(`error reading "PreFilterPodTopologySpread" from cycleState: not found`);
});

test("Filter is left out of the per-node loop for a pod without DoNotSchedule constraints", () => {
  const e = env([], [node("n0", zone("a"))]);
  const pl = e.fwk.filter.find((p) => p.name === "PodTopologySpread")!;
  const plain = pod("plain", { labels: web });
  e.fwk.runPreFilterPlugins(new CycleState(), plain);
  expect(pl.filterSkips?.(plain)).toBe(true);
  const constrained = incoming([spread(ZONE, 1)]);
  e.fwk.runPreFilterPlugins(new CycleState(), constrained);
  expect(pl.filterSkips?.(constrained)).toBe(false);
  const soft = incoming([spread(ZONE, 1, "ScheduleAnyway")]);
  e.fwk.runPreFilterPlugins(new CycleState(), soft);
  expect(pl.filterSkips?.(soft)).toBe(true);
});

test("Score is left out for a pod no ScheduleAnyway constraint applies to (every node would score the same)", () => {
  const e = env(webPods("n1", 1), [node("n0"), node("n1")]);
  const pre = e.fwk.preScore.find((p) => p.name === "PodTopologySpread")!;
  const pl = e.fwk.score.find((p) => p.name === "PodTopologySpread")!;
  const skips = (p: Pod) => {
    pre.preScore(new CycleState(), p, e.snapshot.list());
    return pl.scoreSkips?.(p);
  };
  expect(skips(pod("plain", { labels: web }))).toBe(true);
  expect(skips(incoming([spread(HOST, 1, "ScheduleAnyway")]))).toBe(false);
  expect(skips(incoming([spread(HOST, 1)]))).toBe(true);
});
