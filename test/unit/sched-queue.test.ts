// The scheduling queue: priority order, backoff (1s doubling to 10s), the unschedulable pods'
// 60-second flush, moves on cluster events, updates and deletes, nominated pods and the counts
// behind scheduler_pending_pods.
import { describe, expect, test } from "bun:test";
import { pluginNames, SchedulingQueue, type Pod, type QueuedPodInfo } from "../../pkg/scheduler/index.ts";
import { makeFramework, makePod } from "../helpers/sched-fixtures.ts";

function setup() {
  const clock = { t: 1_000_000 };
  const fwk = makeFramework();
  const q = new SchedulingQueue({ less: fwk.less, now: () => clock.t });
  const names = () => { const out: string[] = []; for (let p = q.tryPop(); p; p = q.tryPop()) out.push(p.podInfo.pod.metadata.name!); return out; };
  /** Pops the pod and fails it: back as unschedulable for the cycle it was tried in. */
  const fail = (): QueuedPodInfo => { const p = q.tryPop()!; q.addUnschedulableIfNotPresent(p, q.schedulingCycle); return p; };
  return { clock, q, names, fail, fwk };
}

describe("ordering", () => {
  test("higher priority first, then the earlier-queued pod", () => {
    const { clock, q, names } = setup();
    q.add(makePod("low", { priority: 1 }));
    clock.t += 1;
    q.add(makePod("high-late", { priority: 10 }));
    q.add(makePod("none"));
    clock.t += 1;
    q.add(makePod("high-later", { priority: 10 }));
    expect(names()).toEqual(["high-late", "high-later", "low", "none"]);
  });
  test("the queue sort comes from the profile's PrioritySort", () => {
    expect(setup().fwk.pluginNames("queueSort")).toEqual([pluginNames.PrioritySort]);
  });
  test("pop waits for a pod and returns null once closed", async () => {
    const { q } = setup();
    const waiting = q.pop();
    q.add(makePod("p"));
    expect((await waiting)!.podInfo.pod.metadata.name).toBe("p");
    const never = q.pop();
    q.close();
    expect(await never).toBeNull();
  });
});

describe("backoff", () => {
  test("1s after the first failure, doubling per attempt up to 10s", () => {
    const { q } = setup();
    const info = { podInfo: null as any, timestamp: 0, attempts: 0, initialAttemptTimestamp: 0 };
    const d = (attempts: number) => q.backoffDuration({ ...info, attempts });
    expect([1, 2, 3, 4, 5, 6].map(d)).toEqual([1000, 2000, 4000, 8000, 10000, 10000]);
  });
  test("a pod failed while a move request came in waits out its backoff, then returns to activeQ", () => {
    const { clock, q, names } = setup();
    q.add(makePod("p"));
    const p = q.tryPop()!;
    q.moveAllToActiveOrBackoffQueue("NodeAdd");
    q.addUnschedulableIfNotPresent(p, q.schedulingCycle);
    expect(q.pendingCounts()).toEqual({ active: 0, backoff: 1, unschedulable: 0 });
    clock.t += 999;
    q.flushBackoffQCompleted();
    expect(names()).toEqual([]);
    clock.t += 1;
    q.flushBackoffQCompleted();
    expect(names()).toEqual(["p"]);
  });
});

describe("unschedulable pods", () => {
  test("stay out of activeQ until a cluster event moves them", () => {
    const { clock, q, names, fail } = setup();
    q.add(makePod("p"));
    fail();
    expect(q.pendingCounts()).toEqual({ active: 0, backoff: 0, unschedulable: 1 });
    clock.t += 500;
    q.moveAllToActiveOrBackoffQueue("NodeAdd");
    // Still inside its 1s backoff: to backoffQ first.
    expect(q.pendingCounts()).toEqual({ active: 0, backoff: 1, unschedulable: 0 });
    clock.t += 600;
    q.flushBackoffQCompleted();
    expect(names()).toEqual(["p"]);
  });
  test("past their backoff a cluster event moves them straight to activeQ", () => {
    const { clock, q, names, fail } = setup();
    q.add(makePod("p"));
    fail();
    clock.t += 5000;
    q.moveAllToActiveOrBackoffQueue("PodDelete");
    expect(names()).toEqual(["p"]);
  });
  test("are retried after 60 seconds even without an event", () => {
    const { clock, q, names, fail } = setup();
    q.add(makePod("p"));
    fail();
    clock.t += 60_000;
    q.flushUnschedulableQLeftover();
    expect(q.pendingCounts().unschedulable).toBe(1);
    clock.t += 1;
    q.flushUnschedulableQLeftover();
    expect(names()).toEqual(["p"]);
  });
  test("a bound pod matching their required affinity moves them", () => {
    const { clock, q, names, fail } = setup();
    const affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "db" } }, topologyKey: "zone" }] } };
    q.add(makePod("wants-db", { spec: { affinity } }));
    fail();
    q.add(makePod("plain"));
    fail();
    clock.t += 5000;
    q.assignedPodAdded(makePod("web", { labels: { app: "web" }, nodeName: "n" }));
    expect(names()).toEqual([]);
    q.assignedPodAdded(makePod("db", { labels: { app: "db" }, nodeName: "n" }));
    expect(names()).toEqual(["wants-db"]);
    expect(q.pendingCounts().unschedulable).toBe(1);
  });
  test("a changed spec retries the pod; a status-only change does not", () => {
    const { clock, q, names, fail } = setup();
    const p = makePod("p");
    q.add(p);
    fail();
    clock.t += 5000;
    const statusOnly: Pod = { ...p, metadata: { ...p.metadata, resourceVersion: "9" }, status: { phase: "Pending" } };
    q.update(p, statusOnly);
    expect(names()).toEqual([]);
    const relabeled: Pod = { ...statusOnly, metadata: { ...statusOnly.metadata, labels: { x: "y" } } };
    q.update(statusOnly, relabeled);
    expect(names()).toEqual(["p"]);
  });
  test("adding a pod already queued as unschedulable is refused", () => {
    const { q, fail } = setup();
    q.add(makePod("p"));
    const p = fail();
    expect(() => q.addUnschedulableIfNotPresent(p, q.schedulingCycle)).toThrow("is already present in unschedulable queue");
  });
});

describe("updates, deletes, nominations", () => {
  test("delete removes a pod from whichever sub-queue holds it", () => {
    const { q, fail } = setup();
    const a = makePod("a");
    const b = makePod("b");
    q.add(a);
    fail();
    q.add(b);
    q.delete(a);
    q.delete(b);
    expect(q.pendingCounts()).toEqual({ active: 0, backoff: 0, unschedulable: 0 });
  });
  test("an update of a pod in activeQ re-sorts it", () => {
    const { q, names } = setup();
    const a = makePod("a", { priority: 1 });
    q.add(a);
    q.add(makePod("b", { priority: 5 }));
    q.update(a, { ...a, spec: { ...a.spec, priority: 9 } });
    expect(names()).toEqual(["a", "b"]);
  });
  test("an update of an unknown pod adds it", () => {
    const { q, names } = setup();
    const a = makePod("a");
    q.update(a, a);
    expect(names()).toEqual(["a"]);
  });
  test("pods with status.nominatedNodeName are nominated to that node until deleted", () => {
    const { q } = setup();
    const p = makePod("p");
    p.status = { nominatedNodeName: "n1" };
    q.add(p);
    expect(q.nominator.nominatedPodsForNode("n1").map((i) => i.pod.metadata.name)).toEqual(["p"]);
    q.delete(p);
    expect(q.nominator.nominatedPodsForNode("n1")).toEqual([]);
  });
  test("a nomination made here survives an update that does not carry it yet", () => {
    const { q } = setup();
    const p = makePod("p");
    q.add(p);
    q.nominator.addNominatedPod(p, "n2");
    q.update(p, { ...p, metadata: { ...p.metadata, resourceVersion: "2" } });
    expect(q.nominator.nominatedPodsForNode("n2").length).toBe(1);
  });
});
