// The scheduler cache: pods assumed on a node count at once, are confirmed by the watch, expire
// when the watch never confirms them, and are forgotten when binding fails; snapshots copy only
// the nodes that changed.
import { describe, expect, test } from "bun:test";
import { SchedulerCache, Snapshot, type Pod } from "../../pkg/scheduler/index.ts";
import { makeNode, makePod } from "../helpers/sched-fixtures.ts";

function setup() {
  const clock = { t: 0 };
  const cache = new SchedulerCache(30_000, () => clock.t);
  for (const n of ["a", "b", "c"]) cache.addNode(makeNode(n, { allocatable: { cpu: "4", memory: "8Gi", pods: "10" } }));
  const snapshot = new Snapshot();
  const cpuOn = (node: string) => { cache.updateSnapshot(snapshot); return snapshot.get(node)!.requested.milliCPU; };
  return { clock, cache, snapshot, cpuOn };
}
const onNode = (p: Pod, nodeName: string): Pod => ({ ...p, spec: { ...p.spec, nodeName } });

describe("assumed pods", () => {
  test("count on their node as soon as assumed", () => {
    const { cache, cpuOn } = setup();
    cache.assumePod(onNode(makePod("p", { requests: { cpu: "1" } }), "a"));
    expect(cpuOn("a")).toBe(1000);
    expect(cache.assumedPodCount()).toBe(1);
  });
  test("are confirmed by the bound pod from the watch", () => {
    const { cache, clock, cpuOn } = setup();
    const p = onNode(makePod("p", { requests: { cpu: "1" } }), "a");
    cache.assumePod(p);
    cache.finishBinding(p);
    cache.addPod(p);
    clock.t += 60_000;
    expect(cache.cleanupAssumedPods()).toEqual([]);
    expect(cpuOn("a")).toBe(1000);
    expect(cache.isAssumedPod(p)).toBe(false);
  });
  test("move if the watch shows them bound to another node", () => {
    const { cache, cpuOn } = setup();
    const p = makePod("p", { requests: { cpu: "1" } });
    cache.assumePod(onNode(p, "a"));
    cache.addPod(onNode(p, "b"));
    expect([cpuOn("a"), cpuOn("b")]).toEqual([0, 1000]);
  });
  test("expire once the TTL passes after binding finished", () => {
    const { cache, clock, cpuOn } = setup();
    const p = onNode(makePod("p", { requests: { cpu: "1" } }), "a");
    cache.assumePod(p);
    clock.t += 60_000;
    expect(cache.cleanupAssumedPods()).toEqual([]); // binding not finished: never expires
    cache.finishBinding(p);
    clock.t += 29_999;
    expect(cache.cleanupAssumedPods()).toEqual([]);
    clock.t += 1;
    expect(cache.cleanupAssumedPods().map((x) => x.metadata.name)).toEqual(["p"]);
    expect(cpuOn("a")).toBe(0);
    // The watch may still deliver it later: it is added again.
    cache.addPod(p);
    expect(cpuOn("a")).toBe(1000);
  });
  test("are forgotten when binding fails", () => {
    const { cache, cpuOn } = setup();
    const p = onNode(makePod("p", { requests: { cpu: "1" } }), "a");
    cache.assumePod(p);
    cache.forgetPod(p);
    expect(cpuOn("a")).toBe(0);
    expect(() => cache.forgetPod(p)).toThrow("wasn't assumed so cannot be forgotten");
  });
  test("cannot be assumed twice", () => {
    const { cache } = setup();
    const p = onNode(makePod("p"), "a");
    cache.assumePod(p);
    expect(() => cache.assumePod(p)).toThrow("is in the cache, so can't be assumed");
  });
});

describe("pods and nodes", () => {
  test("update moves the pod's requests; remove takes them away", () => {
    const { cache, cpuOn } = setup();
    const p = onNode(makePod("p", { requests: { cpu: "1" } }), "a");
    cache.addPod(p);
    const bigger = { ...p, spec: { ...p.spec, containers: [{ name: "c", resources: { requests: { cpu: "2" } } }] } };
    cache.updatePod(p, bigger);
    expect(cpuOn("a")).toBe(2000);
    cache.removePod(bigger);
    expect(cpuOn("a")).toBe(0);
  });
  test("a pod seen before its node is kept and counted when the node arrives", () => {
    const { cache, snapshot } = setup();
    cache.addPod(onNode(makePod("early", { requests: { cpu: "1" } }), "late"));
    cache.updateSnapshot(snapshot);
    expect(snapshot.get("late")).toBeUndefined();
    cache.addNode(makeNode("late"));
    cache.updateSnapshot(snapshot);
    expect(snapshot.get("late")!.requested.milliCPU).toBe(1000);
    expect(snapshot.list().length).toBe(4);
  });
  test("a removed node leaves the snapshot", () => {
    const { cache, snapshot } = setup();
    cache.updateSnapshot(snapshot);
    cache.removeNode(makeNode("b"));
    cache.updateSnapshot(snapshot);
    expect(snapshot.list().map((n) => n.name).sort()).toEqual(["a", "c"]);
    expect(snapshot.get("b")).toBeUndefined();
    expect(cache.nodeCount()).toBe(2);
  });
  test("a node removed while another is added leaves the snapshot too", () => {
    const { cache, snapshot } = setup();
    cache.updateSnapshot(snapshot);
    cache.removeNode(makeNode("b"));
    cache.addNode(makeNode("d"));
    cache.updateSnapshot(snapshot);
    expect(snapshot.get("b")).toBeUndefined();
    expect(snapshot.list().map((n) => n.name).sort()).toEqual(["a", "c", "d"]);
  });
  test("a node update changes allocatable", () => {
    const { cache, snapshot } = setup();
    const old = makeNode("a");
    cache.updateNode(old, makeNode("a", { allocatable: { cpu: "16", memory: "8Gi", pods: "10" } }));
    cache.updateSnapshot(snapshot);
    expect(snapshot.get("a")!.allocatable.milliCPU).toBe(16000);
  });
});

describe("snapshots", () => {
  test("copy only nodes changed since the last update, in place", () => {
    const { cache, snapshot } = setup();
    cache.updateSnapshot(snapshot);
    const a = snapshot.get("a")!;
    const b = snapshot.get("b")!;
    const bGen = b.generation;
    cache.addPod(onNode(makePod("p", { requests: { cpu: "1" } }), "a"));
    cache.updateSnapshot(snapshot);
    expect(snapshot.get("a")).toBe(a); // the same object, updated
    expect(a.requested.milliCPU).toBe(1000);
    expect(snapshot.get("b")!.generation).toBe(bGen);
  });
  test("a snapshot is not changed by the cache until the next update", () => {
    const { cache, snapshot } = setup();
    cache.updateSnapshot(snapshot);
    cache.addPod(onNode(makePod("p", { requests: { cpu: "1" } }), "a"));
    expect(snapshot.get("a")!.requested.milliCPU).toBe(0);
  });
  test("track nodes with affinity and required anti-affinity pods", () => {
    const { cache, snapshot } = setup();
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "x" } }, topologyKey: "zone" }] } };
    const pref = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { labelSelector: {}, topologyKey: "zone" } }] } };
    cache.updateSnapshot(snapshot);
    const p = onNode(makePod("anti", { spec: { affinity: anti } }), "a");
    cache.addPod(p);
    cache.addPod(onNode(makePod("pref", { spec: { affinity: pref } }), "b"));
    cache.updateSnapshot(snapshot);
    expect(snapshot.havePodsWithAffinityList().map((n) => n.name).sort()).toEqual(["a", "b"]);
    expect(snapshot.havePodsWithRequiredAntiAffinityList().map((n) => n.name)).toEqual(["a"]);
    cache.removePod(p);
    cache.updateSnapshot(snapshot);
    expect(snapshot.havePodsWithRequiredAntiAffinityList()).toEqual([]);
  });
  test("list nodes round-robin across zones", () => {
    const cache = new SchedulerCache();
    for (const [n, z] of [["a1", "a"], ["a2", "a"], ["a3", "a"], ["b1", "b"], ["c1", "c"], ["c2", "c"]]) {
      cache.addNode(makeNode(n, { labels: { "topology.kubernetes.io/zone": z } }));
    }
    const s = new Snapshot();
    cache.updateSnapshot(s);
    expect(s.list().map((n) => n.name)).toEqual(["a1", "b1", "c1", "a2", "c2", "a3"]);
  });
});

describe("incremental snapshots match a snapshot built from scratch", () => {
  test("over a random sequence of node and pod events", () => {
    let seed = 42;
    const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
    const cache = new SchedulerCache();
    const snapshot = new Snapshot();
    const nodes = new Map<string, ReturnType<typeof makeNode>>();
    const pods = new Map<string, Pod>(); // bound or assumed, by name
    const assumed = new Set<string>();
    for (let step = 0; step < 3000; step++) {
      const op = rand(10);
      const nodeName = `n${rand(12)}`;
      if (op === 0 && !nodes.has(nodeName)) {
        const n = makeNode(nodeName, { allocatable: { cpu: `${1 + rand(8)}`, memory: "8Gi", pods: "110" } });
        nodes.set(nodeName, n);
        cache.addNode(n);
      } else if (op === 1 && nodes.has(nodeName)) {
        const n = makeNode(nodeName, { allocatable: { cpu: `${1 + rand(8)}`, memory: "8Gi", pods: "110" } });
        cache.updateNode(nodes.get(nodeName)!, n);
        nodes.set(nodeName, n);
      } else if (op === 2 && nodes.has(nodeName) && rand(3) === 0) {
        cache.removeNode(nodes.get(nodeName)!);
        nodes.delete(nodeName);
      } else if (op <= 5) {
        const p = onNode(makePod(`p${step}`, { requests: { cpu: `${rand(500)}m` } }), nodeName);
        pods.set(p.metadata.name!, p);
        if (op === 5) { cache.assumePod(p); assumed.add(p.metadata.name!); } else cache.addPod(p);
      } else if (pods.size > 0) {
        const names = [...pods.keys()];
        const name = names[rand(names.length)];
        const p = pods.get(name)!;
        if (assumed.has(name)) {
          if (op === 6) cache.forgetPod(p);
          else cache.addPod(p); // confirmed by the watch
          assumed.delete(name);
          if (op === 6) pods.delete(name);
        } else {
          cache.removePod(p);
          pods.delete(name);
        }
      }
      if (rand(4) === 0) {
        cache.updateSnapshot(snapshot);
        const fresh = Snapshot.of([...pods.values()], [...nodes.values()]);
        const view = (s: Snapshot) => s.list().map((n) => `${n.name}:${n.pods.length}:${n.requested.milliCPU}/${n.allocatable.milliCPU}`).sort();
        expect(view(snapshot)).toEqual(view(fresh));
        expect(snapshot.nodeInfoMap.size).toBe(nodes.size);
      }
    }
  });
});
