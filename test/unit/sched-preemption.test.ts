// DefaultPreemption: which node it picks, which pods it evicts, PodDisruptionBudgets,
// preemptionPolicy Never, eligibility while an earlier preemption is under way, and what it asks
// the cluster to do (delete, record "Preempted", clear lower-priority nominations).
import { describe as group, expect, test } from "bun:test";
import type { AnyObject, Labels, Node, Pod, PodSpec } from "../../pkg/scheduler/index.ts";
import { numCandidatesFor } from "../../pkg/scheduler/plugins/defaultpreemption/plugin.ts";
import { pickOneNodeForPreemption } from "../../pkg/scheduler/plugins/defaultpreemption/pick.ts";
import { env, filterAll, node, pod, TestListers } from "../helpers/sched-adv-fixtures.ts";

const settle = () => new Promise((r) => setTimeout(r, 0));

/** Runs a scheduling cycle for the pod and then PostFilter: the nominated node (or "") and the env. */
async function preempt(pods: Pod[], nodes: Node[], p: Pod, listers = new TestListers(), setup?: (e: ReturnType<typeof env>) => void) {
  const e = env(pods, nodes, {}, listers);
  setup?.(e);
  const { state, statuses } = filterAll(e, p);
  expect(statuses.size).toBe(nodes.length);
  const r = e.fwk.runPostFilterPlugins(state, p, statuses);
  await settle();
  return { nominated: r.result?.nominatedNodeName ?? "", status: r.status, e };
}

const low = (name: string, nodeName: string, priority: number, cpu = "1", o: { labels?: Labels; startTime?: string; terminating?: boolean } = {}) =>
  pod(name, { node: nodeName, priority, cpu, labels: o.labels, terminating: o.terminating, status: o.startTime ? { startTime: o.startTime } : undefined });
const preemptor = (cpu: string, priority = 100, spec: Partial<PodSpec> = {}, status?: Pod["status"]) =>
  pod("high", { cpu, priority, spec, status });
const pdb = (labels: Labels, disruptionsAllowed: number, disruptedPods: Record<string, string> = {}): AnyObject =>
  ({ metadata: { name: "pdb", namespace: "default" }, spec: { selector: { matchLabels: labels } }, status: { disruptionsAllowed, disruptedPods } });

group("DefaultPreemption picks the node", () => {
  const cases: { name: string; pods: Pod[]; nodes: Node[]; pod: Pod; want: string; victims: string[]; pdbs?: AnyObject[] }[] = [
    {
      name: "the node whose most important victim has the lowest priority",
      pods: [low("a-1", "a", 30, "4"), low("b-1", "b", 10, "4"), low("c-1", "c", 20, "4")],
      nodes: [node("a"), node("b"), node("c")], pod: preemptor("2"), want: "b", victims: ["b-1"],
    },
    {
      name: "evicting only as many as needed: the lowest priorities go, the rest are reprieved",
      pods: [low("a-1", "a", 1), low("a-2", "a", 2), low("a-3", "a", 3), low("a-4", "a", 4)],
      nodes: [node("a")], pod: preemptor("2"), want: "a", victims: ["a-1", "a-2"],
    },
    {
      name: "pods of equal or higher priority are never victims",
      pods: [low("a-1", "a", 100, "3"), low("a-2", "a", 5, "1"), low("b-1", "b", 200, "4")],
      nodes: [node("a"), node("b")], pod: preemptor("1"), want: "a", victims: ["a-2"],
    },
    {
      name: "equal highest priority: the smaller sum of priorities",
      pods: [low("a-1", "a", 10, "2"), low("a-2", "a", 10, "2"), low("b-1", "b", 10, "2"), low("b-2", "b", 1, "2")],
      nodes: [node("a"), node("b")], pod: preemptor("4"), want: "b", victims: ["b-1", "b-2"],
    },
    {
      name: "equal highest priority, negative ones included: more victims sum to more",
      pods: [low("a-1", "a", -5, "2"), low("a-2", "a", -5, "2"), low("b-1", "b", -5, "4")],
      nodes: [node("a"), node("b")], pod: preemptor("4"), want: "b", victims: ["b-1"],
    },
    {
      name: "all else equal: the node whose most important victims started latest",
      pods: [
        low("a-1", "a", 10, "4", { startTime: "2026-01-01T10:00:00Z" }),
        low("b-1", "b", 10, "4", { startTime: "2026-01-01T12:00:00Z" }),
        low("c-1", "c", 10, "4", { startTime: "2026-01-01T11:00:00Z" }),
      ],
      nodes: [node("a"), node("b"), node("c")], pod: preemptor("4"), want: "b", victims: ["b-1"],
    },
    {
      name: "a node whose victims would violate a PodDisruptionBudget loses to one that violates none",
      pods: [low("a-1", "a", 1, "4", { labels: { app: "guarded" } }), low("b-1", "b", 50, "4")],
      nodes: [node("a"), node("b")], pod: preemptor("4"), want: "b", victims: ["b-1"],
      pdbs: [pdb({ app: "guarded" }, 0)],
    },
    {
      name: "a budget with room does not count as violated",
      pods: [low("a-1", "a", 1, "4", { labels: { app: "guarded" } }), low("b-1", "b", 50, "4")],
      nodes: [node("a"), node("b")], pod: preemptor("4"), want: "a", victims: ["a-1"],
      pdbs: [pdb({ app: "guarded" }, 1)],
    },
    {
      name: "on a node, budget-protected pods are reprieved first",
      pods: [low("a-1", "a", 5, "2", { labels: { app: "guarded" } }), low("a-2", "a", 5, "2")],
      nodes: [node("a")], pod: preemptor("2"), want: "a", victims: ["a-2"],
      pdbs: [pdb({ app: "guarded" }, 0)],
    },
    {
      name: "pods a budget already counts as disrupted do not violate it",
      pods: [low("a-1", "a", 1, "4", { labels: { app: "guarded" } }), low("b-1", "b", 50, "4")],
      nodes: [node("a"), node("b")], pod: preemptor("4"), want: "a", victims: ["a-1"],
      pdbs: [pdb({ app: "guarded" }, 0, { "a-1": "2026-01-01T00:00:00Z" })],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const listers = new TestListers();
      listers.pdbs = c.pdbs ?? [];
      const { nominated, status, e } = await preempt(c.pods, c.nodes, c.pod, listers);
      expect(status).toBeNull();
      expect(nominated).toBe(c.want);
      expect(e.actions.deleted.sort()).toEqual(c.victims);
    });
  }
});

group("DefaultPreemption acts", () => {
  test("victims are deleted with a Preempted event naming the preemptor and node", async () => {
    const { e } = await preempt([low("a-1", "a", 1, "4")], [node("a")], preemptor("2"));
    expect(e.actions.deleted).toEqual(["a-1"]);
    expect(e.actions.events).toEqual(["a-1 Normal Preempted: Preempted by default/high on node a"]);
  });

  test("lower-priority pods nominated to the chosen node lose their nomination; higher ones keep it", async () => {
    const nominatedLow = pod("nom-low", { priority: 50, cpu: "1", status: { nominatedNodeName: "a" } });
    const nominatedHigh = pod("nom-high", { priority: 500, cpu: "1", status: { nominatedNodeName: "a" } });
    const { nominated, e } = await preempt([low("a-1", "a", 1, "2")], [node("a")], preemptor("2"), new TestListers(), (e) => {
      e.nominator.addNominatedPod(nominatedLow, "a");
      e.nominator.addNominatedPod(nominatedHigh, "a");
    });
    expect(nominated).toBe("a");
    expect(e.actions.nominations).toEqual(["nom-low="]);
  });

  test("preemptionPolicy Never: no preemption", async () => {
    const { nominated, status, e } = await preempt([low("a-1", "a", 1, "4")], [node("a")], preemptor("2", 100, { preemptionPolicy: "Never" }));
    expect(nominated).toBe("");
    expect(status?.code).toBe(2);
    expect(e.actions.deleted).toEqual([]);
  });

  test("no lower-priority pods: nothing to preempt", async () => {
    const { nominated, status, e } = await preempt([low("a-1", "a", 100, "4")], [node("a")], preemptor("2"));
    expect([nominated, status?.code, e.actions.deleted.length]).toEqual(["", 2, 0]);
  });

  test("nodes failing in a way eviction cannot fix are not candidates", async () => {
    // b has the cheaper victim but the pod's nodeSelector rules it out (UnschedulableAndUnresolvable).
    const a = node("a", { pool: "x" });
    const { nominated } = await preempt([low("a-1", "a", 50, "4"), low("b-1", "b", 1, "4")], [a, node("b")], preemptor("2", 100, { nodeSelector: { pool: "x" } }));
    expect(nominated).toBe("a");
  });

  test("when eviction can help nowhere, a stale nomination is cleared", async () => {
    const p = preemptor("2", 100, { nodeSelector: { pool: "none" } }, { nominatedNodeName: "a" });
    const { nominated, e } = await preempt([low("a-1", "a", 1, "4")], [node("a")], p);
    expect(nominated).toBe("");
    expect(e.actions.nominations).toEqual(["high="]);
  });

  test("a pod nominated where a lower-priority pod is still terminating waits instead of preempting again", async () => {
    const pods = [low("a-1", "a", 1, "4", { terminating: true }), low("b-1", "b", 1, "4")];
    const p = preemptor("2", 100, {}, { nominatedNodeName: "a" });
    const { nominated, e } = await preempt(pods, [node("a"), node("b")], p);
    expect(nominated).toBe("");
    expect(e.actions.deleted).toEqual([]);
    // Without the terminating pod it preempts again.
    const again = await preempt([low("a-1", "a", 1, "4"), low("b-1", "b", 1, "4")], [node("a"), node("b")], p);
    expect(again.nominated).not.toBe("");
  });

  test("victims are found through the PreFilter extensions: evicting a pod the preemptor's anti-affinity rejects", async () => {
    const anti = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "noisy" } }, topologyKey: "kubernetes.io/hostname" }] } } };
    const pods = [low("a-1", "a", 1, "1", { labels: { app: "noisy" } }), low("a-2", "a", 1, "1"), low("b-1", "b", 500, "1", { labels: { app: "noisy" } })];
    const { nominated, e } = await preempt(pods, [node("a"), node("b")], preemptor("1", 100, anti));
    expect(nominated).toBe("a");
    expect(e.actions.deleted).toEqual(["a-1"]);
  });

  test("victims are found through the PreFilter extensions: spreading over hosts", async () => {
    const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "web" } } }] };
    const web = { app: "web" };
    // a holds two web pods (one of low priority): one more there is a skew of 2. b has one web
    // pod of high priority filling it. Evicting a's low one makes the skew 1.
    const pods = [low("a-1", "a", 1, "1", { labels: web }), low("a-2", "a", 500, "1", { labels: web }), low("b-1", "b", 500, "4", { labels: web })];
    const p = pod("high", { priority: 100, cpu: "1", labels: web, spec: spread });
    const { nominated, e } = await preempt(pods, [node("a"), node("b")], p);
    expect(nominated).toBe("a");
    expect(e.actions.deleted).toEqual(["a-1"]);
  });
});

test("the number of candidates: a share of the nodes, at least the absolute minimum, at most all", () => {
  const cases: [number, number, number, number][] = [
    [50, 10, 100, 50], [5000, 10, 100, 500], [500, 10, 100, 100], [5000, 0, 10, 10], [5000, 100, 0, 5000],
  ];
  for (const [nodes, pct, abs, want] of cases) expect(numCandidatesFor(nodes, pct, abs)).toBe(want);
});

test("a candidate needing no eviction wins outright", () => {
  const v = pod("v", { priority: 1 });
  expect(pickOneNodeForPreemption([{ name: "x", victims: [v], numPDBViolations: 0 }, { name: "y", victims: [], numPDBViolations: 0 }], 0)?.name).toBe("y");
  expect(pickOneNodeForPreemption([], 0)).toBeNull();
});
