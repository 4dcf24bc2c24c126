// Placing a pod end to end in memory: the FitError message the FailedScheduling event and the
// PodScheduled condition carry, how many nodes a cycle examines, tie-breaking, the scheduling and
// binding cycles with the cache and queue.
import { describe, expect, test } from "bun:test";
import {
  buildProfiles, fitErrorMessage, GenericScheduler, inTreeRegistry, Nominator, numFeasibleNodesToFind, Scheduler, SchedulerCache,
  SchedulingQueue, Status, Code, truncateMessage, unscheduledCondition, type Node, type Pod,
} from "../../pkg/scheduler/index.ts";
import { FakeActions, FakeListers, makeNode, makePod } from "../helpers/sched-fixtures.ts";

function cluster(nodes: Node[], config = {}) {
  const nominator = new Nominator();
  const actions = new FakeActions();
  const profiles = buildProfiles(config, { registry: inTreeRegistry(), nominator, listers: new FakeListers(), actions });
  const fwk = profiles.get("default-scheduler")!;
  const cache = new SchedulerCache();
  const queue = new SchedulingQueue({ less: fwk.less, nominator });
  const sched = new Scheduler({ cache, queue, profiles });
  for (const n of nodes) cache.addNode(n);
  const once = (pod: Pod) => { queue.add(pod); return sched.scheduleOne(queue.tryPop()!); };
  return { cache, queue, sched, actions, once };
}

describe("FitError message", () => {
  test("reasons counted over nodes and sorted as strings, as upstream", () => {
    const statuses = new Map([
      ["n1", new Status(Code.UnschedulableAndUnresolvable, "node(s) had taint {k: v}, that the pod didn't tolerate")],
      ["n2", new Status(Code.Unschedulable, "Insufficient cpu")],
      ["n3", new Status(Code.Unschedulable, "Insufficient cpu")],
    ]);
    expect(fitErrorMessage(3, statuses)).toBe("0/3 nodes are available: 1 node(s) had taint {k: v}, that the pod didn't tolerate, 2 Insufficient cpu.");
  });
  test("a node failing on several resources counts each", () => {
    const statuses = new Map([["n1", new Status(Code.Unschedulable, "Insufficient cpu", "Insufficient memory")], ["n2", new Status(Code.Unschedulable, "Insufficient memory")]]);
    expect(fitErrorMessage(2, statuses)).toBe("0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.");
  });
  test("from a real cycle: taint and cpu", () => {
    const { once } = cluster([
      makeNode("tainted", { spec: { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] } }),
      makeNode("small1", { allocatable: { cpu: "1", memory: "8Gi", pods: "110" } }),
      makeNode("small2", { allocatable: { cpu: "1", memory: "8Gi", pods: "110" } }),
    ]);
    const out = once(makePod("big", { requests: { cpu: "2" } }));
    expect(out.kind).toBe("failed");
    if (out.kind !== "failed") return;
    expect(out.message).toBe("0/3 nodes are available: 1 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate, 2 Insufficient cpu.");
    expect(out.reason).toBe("Unschedulable");
    expect(out.attempt).toBe("unschedulable");
    expect(unscheduledCondition(out.reason, out.message)).toEqual({ type: "PodScheduled", status: "False", reason: "Unschedulable", message: out.message });
  });
  test("a PreFilter failure counts against every node", () => {
    const { once } = cluster([makeNode("a"), makeNode("b")]);
    const out = once(makePod("p", { spec: { volumes: [{ name: "v", persistentVolumeClaim: { claimName: "data" } }] } }));
    expect(out.kind === "failed" && out.message).toBe('0/2 nodes are available: 2 persistentvolumeclaim "data" not found.');
  });
  test("no nodes at all", () => {
    const { once } = cluster([]);
    const out = once(makePod("p"));
    expect(out.kind === "failed" && out.message).toBe("no nodes available to schedule pods");
  });
  test("long messages are cut at 1024 characters for the event", () => {
    const m = truncateMessage("x".repeat(2000));
    expect(m.length).toBe(1024);
    expect(m.endsWith("x ...")).toBe(true);
    expect(truncateMessage("short")).toBe("short");
  });
});

describe("how many nodes a cycle examines", () => {
  test.each([
    [50, 0, 50],
    [99, 0, 99],
    [100, 0, 100],
    [200, 0, 100],
    [1000, 0, 420],
    [5000, 0, 500],
    [6000, 0, 300],
    [10000, 0, 500],
    [5000, 30, 1500],
    [5000, 1, 100],
    [5000, 100, 5000],
  ])("%d nodes at percentageOfNodesToScore %d → %d", (nodes, pct, want) => {
    expect(numFeasibleNodesToFind(nodes, pct)).toBe(want);
  });
  test("each cycle starts where the last one stopped", () => {
    const nodes = Array.from({ length: 300 }, (_, i) => makeNode(`n${i}`));
    const { sched, queue } = cluster(nodes);
    queue.add(makePod("p1"));
    const first = sched.scheduleOne(queue.tryPop()!);
    // 300 nodes: 50% less 300/125 = 48% of them.
    expect(first.kind === "scheduled" && first.result.evaluatedNodes).toBe(144);
    queue.add(makePod("p2"));
    const second = sched.scheduleOne(queue.tryPop()!);
    // The second cycle saw n144..n287 only.
    const host = second.kind === "scheduled" ? Number(second.result.suggestedHost.slice(1)) : -1;
    expect(host).toBeGreaterThanOrEqual(144);
    expect(host).toBeLessThan(288);
  });
});

describe("selecting the host", () => {
  test("the highest score wins", () => {
    const g = new GenericScheduler();
    expect(g.selectHost([{ name: "a", score: 1 }, { name: "b", score: 5 }, { name: "c", score: 3 }])).toBe("b");
  });
  test("ties are broken at random among the best", () => {
    const seen = new Set<string>();
    const g = new GenericScheduler();
    for (let i = 0; i < 200; i++) seen.add(g.selectHost([{ name: "a", score: 5 }, { name: "b", score: 1 }, { name: "c", score: 5 }]));
    expect([...seen].sort()).toEqual(["a", "c"]);
  });
  test("a single feasible node is taken without scoring", () => {
    const { once } = cluster([makeNode("only"), makeNode("cordoned", { spec: { unschedulable: true } })]);
    const out = once(makePod("p"));
    expect(out.kind === "scheduled" && out.result).toEqual({ suggestedHost: "only", evaluatedNodes: 2, feasibleNodes: 1 });
  });
  test("scores pick the emptier node", () => {
    const { once } = cluster([makeNode("busy", { allocatable: { cpu: "2", memory: "4Gi", pods: "110" } }), makeNode("roomy", { allocatable: { cpu: "16", memory: "32Gi", pods: "110" } })]);
    const out = once(makePod("p", { requests: { cpu: "1", memory: "1Gi" } }));
    expect(out.kind === "scheduled" && out.result.suggestedHost).toBe("roomy");
  });
});

describe("scheduling and binding cycles", () => {
  test("an assumed pod takes room from the next pods before any binding", () => {
    const { once } = cluster([makeNode("n", { allocatable: { cpu: "1", memory: "1Gi", pods: "110" } })]);
    expect(once(makePod("a", { requests: { cpu: "600m" } })).kind).toBe("scheduled");
    const second = once(makePod("b", { requests: { cpu: "600m" } }));
    expect(second.kind === "failed" && second.message).toBe("0/1 nodes are available: 1 Insufficient cpu.");
  });
  test("binding calls the API through DefaultBinder and reports the Scheduled message", async () => {
    const { once, sched, actions, cache } = cluster([makeNode("n")]);
    const out = once(makePod("p"));
    if (out.kind !== "scheduled") throw new Error(out.kind);
    const bound = await sched.bind(out);
    expect(bound).toMatchObject({ kind: "bound", nodeName: "n", message: "Successfully assigned default/p to n" });
    expect(actions.bound).toEqual([["p", "n"]]);
    expect(cache.isAssumedPod(out.assumedPod)).toBe(true); // until the watch confirms it
  });
  test("a failed binding forgets the pod and queues it again", async () => {
    const { once, sched, actions, cache, queue } = cluster([makeNode("n")]);
    actions.failBind = true;
    const out = once(makePod("p", { requests: { cpu: "1" } }));
    if (out.kind !== "scheduled") throw new Error(out.kind);
    const r = await sched.bind(out);
    expect(r).toMatchObject({ kind: "failed", reason: "SchedulerError", attempt: "error", message: 'binding rejected: running Bind plugin "DefaultBinder": pods "x" is forbidden' });
    expect(cache.isAssumedPod(out.assumedPod)).toBe(false);
    expect(queue.pendingCounts().unschedulable + queue.pendingCounts().backoff).toBe(1);
  });
  test("a failed pod goes back to the queue as unschedulable", () => {
    const { once, queue } = cluster([makeNode("n", { spec: { unschedulable: true } })]);
    once(makePod("p"));
    expect(queue.pendingCounts()).toEqual({ active: 0, backoff: 0, unschedulable: 1 });
  });
  test("a pod for another scheduler's profile is not this profile's", () => {
    const { sched } = cluster([makeNode("n")]);
    expect(sched.frameworkFor(makePod("p", { spec: { schedulerName: "other" } }))).toBeUndefined();
    expect(sched.frameworkFor(makePod("p"))?.profileName).toBe("default-scheduler");
  });
  test("pods nominated to a node keep their room from lower-priority pods", () => {
    const { once, queue } = cluster([makeNode("n", { allocatable: { cpu: "1", memory: "1Gi", pods: "110" } })]);
    const nominated = makePod("vip", { requests: { cpu: "800m" }, priority: 100 });
    queue.nominator.addNominatedPod(nominated, "n");
    const low = once(makePod("low", { requests: { cpu: "500m" }, priority: 1 }));
    expect(low.kind === "failed" && low.message).toBe("0/1 nodes are available: 1 Insufficient cpu.");
    const high = once(makePod("high", { requests: { cpu: "500m" }, priority: 1000 }));
    expect(high.kind).toBe("scheduled");
  });
});

describe("every filter applies through the framework when the pod needs it", () => {
  const nodes = () => [
    makeNode("a", { labels: { disk: "hdd" } }),
    makeNode("b", { labels: { disk: "ssd" } }),
    makeNode("c", { labels: { disk: "ssd" } }),
  ];
  const hostPort = (name: string) => makePod(name, { spec: { containers: [{ name: "c", ports: [{ containerPort: 80, hostPort: 80 }] }] } });
  test.each([
    ["spec.nodeName", makePod("p", { spec: { nodeName: "c" } }), ["c"]],
    ["nodeSelector", makePod("p", { spec: { nodeSelector: { disk: "ssd" } } }), ["b", "c"]],
    ["required node affinity", makePod("p", { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "disk", operator: "NotIn", values: ["ssd"] }] }] } } } } }), ["a"]],
  ] as const)("%s", (_n, pod, allowed) => {
    const { once } = cluster(nodes());
    for (let i = 0; i < 5; i++) {
      const out = once({ ...pod, metadata: { ...pod.metadata, name: `p${i}`, uid: `u${i}` } });
      expect(out.kind === "scheduled" && allowed.includes(out.result.suggestedHost as never)).toBe(true);
    }
  });
  test("host ports: one pod per node, then none fits", () => {
    const { once } = cluster(nodes());
    const hosts = [0, 1, 2].map((i) => { const o = once(hostPort(`p${i}`)); return o.kind === "scheduled" ? o.result.suggestedHost : ""; });
    expect(hosts.sort()).toEqual(["a", "b", "c"]);
    const out = once(hostPort("p3"));
    expect(out.kind === "failed" && out.message).toBe("0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports.");
  });
  test("a disk mounted read-write on a node keeps a second pod off it", () => {
    const { once } = cluster([makeNode("only")]);
    const disk = (name: string) => makePod(name, { spec: { volumes: [{ name: "d", gcePersistentDisk: { pdName: "pd" } }] } });
    expect(once(disk("p1")).kind).toBe("scheduled");
    const out = once(disk("p2"));
    expect(out.kind === "failed" && out.message).toBe("0/1 nodes are available: 1 node(s) had no available disk.");
  });
});
