// InterPodAffinity: required affinity and anti-affinity both ways (the incoming pod's terms and
// existing pods' anti-affinity), namespaces, the first pod of a group, PreFilter extensions, and
// the preferred-term score with its normalization.
import { describe as group, expect, test } from "bun:test";
import {
  CycleState, type FilterPlugin, type Labels, type Pod, type PodAffinityTerm, type PodSpec, type PreFilterPlugin,
} from "../../pkg/scheduler/index.ts";
import { InterPodAffinity } from "../../pkg/scheduler/plugins/names.ts";
import { inTreeRegistry } from "../../pkg/scheduler/plugins/registry.ts";
import { describe, env, filterAll, node, pod, scoresOf, TestListers, zone } from "../helpers/sched-adv-fixtures.ts";

const ZONE = "topology.kubernetes.io/zone";
const HOST = "kubernetes.io/hostname";
const AFFINITY = "3: node(s) didn't match pod affinity/anti-affinity rules, node(s) didn't match pod affinity rules";
const ANTI = "2: node(s) didn't match pod affinity/anti-affinity rules, node(s) didn't match pod anti-affinity rules";
const EXISTING = "2: node(s) didn't match pod affinity/anti-affinity rules, node(s) didn't satisfy existing pods anti-affinity rules";

const term = (labels: Labels, topologyKey: string, extra: Partial<PodAffinityTerm> = {}): PodAffinityTerm =>
  ({ labelSelector: { matchLabels: labels }, topologyKey, ...extra });
const required = (kind: "podAffinity" | "podAntiAffinity", ...terms: PodAffinityTerm[]): Partial<PodSpec> =>
  ({ affinity: { [kind]: { requiredDuringSchedulingIgnoredDuringExecution: terms } } });
const preferred = (kind: "podAffinity" | "podAntiAffinity", weight: number, t: PodAffinityTerm): Partial<PodSpec> =>
  ({ affinity: { [kind]: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight, podAffinityTerm: t }] } } });

const db = { app: "db" };
const web = { app: "web" };
// zone a: a1, a2; zone b: b1; and a node without a zone
const nodes = () => [node("a1", zone("a")), node("a2", zone("a")), node("b1", zone("b")), node("nozone")];

group("InterPodAffinity filter", () => {
  const cases: { name: string; pods: Pod[]; pod: Pod; want: Record<string, string>; listers?: TestListers }[] = [
    {
      name: "required affinity: only the zone holding a matching pod",
      pods: [pod("db", { node: "a1", labels: db })],
      pod: pod("p", { spec: required("podAffinity", term(db, ZONE)) }),
      want: { a1: "", a2: "", b1: AFFINITY, nozone: AFFINITY },
    },
    {
      name: "required affinity to pods of another namespace named in the term",
      pods: [pod("db", { node: "b1", labels: db, ns: "data" }), pod("db2", { node: "a1", labels: db })],
      pod: pod("p", { spec: required("podAffinity", term(db, ZONE, { namespaces: ["data"] })) }),
      want: { a1: AFFINITY, a2: AFFINITY, b1: "", nozone: AFFINITY },
    },
    {
      name: "the first pod of a group that matches its own affinity may go anywhere with the label",
      pods: [pod("other", { node: "a1", labels: db })],
      pod: pod("p", { labels: web, spec: required("podAffinity", term(web, ZONE)) }),
      want: { a1: "", a2: "", b1: "", nozone: AFFINITY },
    },
    {
      name: "no first-pod exception for a pod that does not match its own affinity",
      pods: [],
      pod: pod("p", { labels: { app: "x" }, spec: required("podAffinity", term(web, ZONE)) }),
      want: { a1: AFFINITY, a2: AFFINITY, b1: AFFINITY, nozone: AFFINITY },
    },
    {
      name: "no first-pod exception once a matching pod exists elsewhere",
      pods: [pod("w", { node: "b1", labels: web })],
      pod: pod("p", { labels: web, spec: required("podAffinity", term(web, ZONE)) }),
      want: { a1: AFFINITY, a2: AFFINITY, b1: "", nozone: AFFINITY },
    },
    {
      name: "all required affinity terms must be met by the same pods",
      pods: [pod("db", { node: "a1", labels: db }), pod("w", { node: "b1", labels: web })],
      pod: pod("p", { spec: required("podAffinity", term(db, ZONE), term(web, ZONE)) }),
      want: { a1: AFFINITY, a2: AFFINITY, b1: AFFINITY, nozone: AFFINITY },
    },
    {
      name: "required anti-affinity by hostname keeps the pod off the matching pod's node",
      pods: [pod("w", { node: "a1", labels: web })],
      pod: pod("p", { spec: required("podAntiAffinity", term(web, HOST)) }),
      want: { a1: ANTI, a2: "", b1: "", nozone: "" },
    },
    {
      name: "required anti-affinity by zone; a node without the zone label is not in that zone",
      pods: [pod("w", { node: "a1", labels: web })],
      pod: pod("p", { spec: required("podAntiAffinity", term(web, ZONE)) }),
      want: { a1: ANTI, a2: ANTI, b1: "", nozone: "" },
    },
    {
      name: "anti-affinity ignores pods of other namespaces",
      pods: [pod("w", { node: "a1", labels: web, ns: "other" })],
      pod: pod("p", { spec: required("podAntiAffinity", term(web, HOST)) }),
      want: { a1: "", a2: "", b1: "", nozone: "" },
    },
    {
      name: "symmetry: an existing pod's anti-affinity keeps a pod it selects out of its zone",
      pods: [pod("guard", { node: "a1", spec: required("podAntiAffinity", term(web, ZONE)) })],
      pod: pod("p", { labels: web }),
      want: { a1: EXISTING, a2: EXISTING, b1: "", nozone: "" },
    },
    {
      name: "symmetry only for pods the existing pod's term selects",
      pods: [pod("guard", { node: "a1", spec: required("podAntiAffinity", term(web, ZONE)) })],
      pod: pod("p", { labels: db }),
      want: { a1: "", a2: "", b1: "", nozone: "" },
    },
    {
      name: "a term with only a namespaceSelector selects nothing while the feature is off (v1.21 default)",
      pods: [pod("w", { node: "a1", labels: web, ns: "team" })],
      pod: pod("p", { spec: required("podAntiAffinity", term(web, HOST, { namespaceSelector: { matchLabels: { team: "yes" } } })) }),
      want: { a1: "", a2: "", b1: "", nozone: "" },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(filterAll(env(c.pods, nodes(), {}, c.listers), c.pod).results).toEqual(c.want);
    });
  }

  test("with the PodAffinityNamespaceSelector gate on, namespaceSelector selects by namespace labels, both ways", () => {
    const listers = new TestListers();
    listers.namespaces.set("team", { team: "yes" });
    const withGate = (pods: Pod[], p: Pod) => {
      const e = env(pods, nodes(), {}, listers);
      const pl = inTreeRegistry({ PodAffinityNamespaceSelector: true }).get(InterPodAffinity)!(undefined, e.fwk) as PreFilterPlugin & FilterPlugin;
      const state = new CycleState();
      expect(pl.preFilter(state, p)).toBeNull();
      return Object.fromEntries(e.snapshot.list().map((n) => [n.name, describe(pl.filter(state, p, n))]));
    };
    const teams = { namespaceSelector: { matchLabels: { team: "yes" } } };
    // The incoming pod's term selects web pods in namespaces labelled team=yes.
    const anti = pod("p", { spec: required("podAntiAffinity", term(web, HOST, teams)) });
    expect(withGate([pod("w", { node: "a1", labels: web, ns: "team" })], anti)).toEqual({ a1: ANTI, a2: "", b1: "", nozone: "" });
    expect(withGate([pod("w", { node: "a1", labels: web, ns: "default" })], anti)).toEqual({ a1: "", a2: "", b1: "", nozone: "" });
    // An existing pod's term selects the incoming pod through the incoming pod's namespace labels.
    const guard = pod("guard", { node: "b1", spec: required("podAntiAffinity", term(web, HOST, teams)) });
    expect(withGate([guard], pod("q", { labels: web, ns: "team" }))).toEqual({ a1: "", a2: "", b1: EXISTING, nozone: "" });
    expect(withGate([guard], pod("q", { labels: web, ns: "default" }))).toEqual({ a1: "", a2: "", b1: "", nozone: "" });
  });

  test("AddPod and RemovePod update all three counts on a copy of the state", () => {
    const e = env([pod("w", { node: "a1", labels: web })], nodes());
    const p = pod("p", { labels: db, spec: required("podAntiAffinity", term(web, HOST)) });
    const { state } = filterAll(e, p);
    const a1 = e.snapshot.get("a1")!;
    const removed = state.clone();
    expect(e.fwk.runPreFilterExtensionRemovePod(removed, p, a1.pods[0], a1)).toBeNull();
    expect(e.fwk.runFilterPlugins(removed, p, a1)).toBeNull();
    expect(e.fwk.runFilterPlugins(state, p, a1)?.message()).toBe(ANTI.slice(3));
    // A guard whose anti-affinity selects db pods, added to b1, keeps p off b1.
    const b1 = e.snapshot.get("b1")!.clone();
    b1.addPod(pod("guard", { node: "b1", spec: required("podAntiAffinity", term(db, HOST)) }));
    const added = state.clone();
    e.fwk.runPreFilterExtensionAddPod(added, p, b1.pods[0], b1);
    expect(e.fwk.runFilterPlugins(added, p, b1)?.message()).toBe(EXISTING.slice(3));
  });

  test("a pod whose terms do not parse is unresolvable everywhere", () => {
    const bad = pod("p", { spec: required("podAffinity", { labelSelector: { matchExpressions: [{ key: "a", operator: "Bogus" }] }, topologyKey: HOST }) });
    const { pre } = filterAll(env([], nodes()), bad);
    expect(pre?.code).toBe(3);
    expect(pre?.message()).toContain("parsing pod:");
  });
});

group("InterPodAffinity score", () => {
  const IPA = "InterPodAffinity";
  const cases: { name: string; pods: Pod[]; pod: Pod; want: Record<string, number>; args?: Record<string, unknown> }[] = [
    {
      name: "preferred affinity: the zone with a matching pod scores highest",
      pods: [pod("db", { node: "a1", labels: db })],
      pod: pod("p", { spec: preferred("podAffinity", 5, term(db, ZONE)) }),
      want: { a1: 100, a2: 100, b1: 0, nozone: 0 },
    },
    {
      name: "preferred anti-affinity: the node with a matching pod scores lowest",
      pods: [pod("w", { node: "a1", labels: web })],
      pod: pod("p", { spec: preferred("podAntiAffinity", 10, term(web, HOST)) }),
      want: { a1: 0, a2: 100, b1: 100, nozone: 100 },
    },
    {
      name: "affinity and anti-affinity together normalize between the lowest and the highest",
      pods: [pod("db", { node: "a1", labels: db }), pod("w", { node: "b1", labels: web })],
      pod: pod("p", {
        spec: {
          affinity: {
            podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 6, podAffinityTerm: term(db, HOST) }] },
            podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 2, podAffinityTerm: term(web, HOST) }] },
          },
        },
      }),
      // 6, 0, -2, 0 → (s + 2) / 8
      want: { a1: 100, a2: 25, b1: 0, nozone: 25 },
    },
    {
      name: "existing pods' preferred affinity counts for pods it selects",
      pods: [pod("fan", { node: "b1", spec: preferred("podAffinity", 7, term(web, ZONE)) })],
      pod: pod("p", { labels: web }),
      want: { a1: 0, a2: 0, b1: 100, nozone: 0 },
    },
    {
      name: "existing pods' preferred anti-affinity counts against pods it selects",
      pods: [pod("hater", { node: "b1", spec: preferred("podAntiAffinity", 3, term(web, ZONE)) })],
      pod: pod("p", { labels: web }),
      want: { a1: 100, a2: 100, b1: 0, nozone: 100 },
    },
    {
      name: "existing pods' required affinity counts with hardPodAffinityWeight (default 1)",
      pods: [pod("needy", { node: "a2", spec: required("podAffinity", term(web, HOST)) })],
      pod: pod("p", { labels: web }),
      want: { a1: 0, a2: 100, b1: 0, nozone: 0 },
    },
    {
      name: "hardPodAffinityWeight 0 turns that off",
      pods: [pod("needy", { node: "a2", spec: required("podAffinity", term(web, HOST)) })],
      pod: pod("p", { labels: web }),
      args: { hardPodAffinityWeight: 0 },
      want: { a1: 0, a2: 0, b1: 0, nozone: 0 },
    },
    {
      name: "no affinity anywhere scores every node 0",
      pods: [pod("w", { node: "a1", labels: web })],
      pod: pod("p", { labels: web }),
      want: { a1: 0, a2: 0, b1: 0, nozone: 0 },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const profile = c.args ? { pluginConfig: [{ name: IPA, args: c.args }] } : {};
      expect(scoresOf(env(c.pods, nodes(), profile), IPA, c.pod)).toEqual(c.want);
    });
  }

  test("without preferred terms only nodes holding pods with affinity are walked", () => {
    const e = env([pod("w", { node: "a1", labels: web })], nodes());
    expect(e.snapshot.havePodsWithAffinityList()).toHaveLength(0);
    // Break the list a walk of every node would read: nothing may look at it.
    for (const ni of e.snapshot.list()) Object.defineProperty(ni, "pods", { get: () => { throw new Error("walked"); } });
    expect(scoresOf(e, IPA, pod("p", { labels: web }))).toEqual({ a1: 0, a2: 0, b1: 0, nozone: 0 });
    expect(e.fwk.runPreFilterPlugins(new CycleState(), pod("p", { labels: web }))).toBeNull();
  });
});

test("the score is left out for a pod with no preferred terms while no pod in the cluster has affinity", () => {
  const plugin = (pods: Pod[]) => env(pods, nodes()).fwk.score.find((p) => p.name === "InterPodAffinity")!;
  expect(plugin([pod("w", { node: "a1", labels: web })]).scoreSkips?.(pod("p"))).toBe(true);
  expect(plugin([pod("w", { node: "a1", labels: web })]).scoreSkips?.(pod("p", { spec: preferred("podAffinity", 1, term(web, HOST)) }))).toBe(false);
  expect(plugin([pod("fan", { node: "b1", spec: preferred("podAffinity", 7, term(web, ZONE)) })]).scoreSkips?.(pod("p"))).toBe(false);
});
