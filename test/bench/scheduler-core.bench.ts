// The scheduling algorithm alone, in-process: 5,000 nodes and 10,000 pods through the cache, the
// queue and the generic scheduler with the default in-tree plugins, each pod assumed (not bound).
// Run: bun test/bench/scheduler-core.bench.ts   (N_NODES, N_PODS override the shape)
import { buildProfiles, inTreeRegistry, Nominator, Scheduler, SchedulerCache, SchedulingQueue } from "../../pkg/scheduler/index.ts";
import { FakeActions, FakeListers, makeNode, makePod } from "../helpers/sched-fixtures.ts";

const N_NODES = Number(process.env.N_NODES ?? 5000);
const N_PODS = Number(process.env.N_PODS ?? 10000);

const nominator = new Nominator();
const profiles = buildProfiles({}, { registry: inTreeRegistry(), nominator, listers: new FakeListers(), actions: new FakeActions() });
const fwk = profiles.get("default-scheduler")!;
const cache = new SchedulerCache();
const queue = new SchedulingQueue({ less: fwk.less, nominator });
const sched = new Scheduler({ cache, queue, profiles });

for (let i = 0; i < N_NODES; i++) {
  cache.addNode(makeNode(`node-${i}`, {
    labels: { "topology.kubernetes.io/zone": `zone-${i % 3}` },
    allocatable: { cpu: "32", memory: "64Gi", pods: "110" },
    images: [{ names: [`img-${i % 10}:latest`], sizeBytes: 300 * 1024 * 1024 }],
  }));
}
for (let i = 0; i < N_PODS; i++) {
  queue.add(makePod(`pod-${i}`, { requests: { cpu: "100m", memory: "128Mi" }, priority: i % 3 }));
}

const t0 = performance.now();
let scheduled = 0;
let failed = 0;
for (let q = queue.tryPop(); q; q = queue.tryPop()) {
  const out = sched.scheduleOne(q);
  if (out.kind === "scheduled") {
    scheduled++;
    cache.finishBinding(out.assumedPod);
  } else failed++;
}
const ms = performance.now() - t0;
console.log(`scheduler-core: ${N_NODES} nodes, ${N_PODS} pods: ${scheduled} scheduled, ${failed} failed in ${ms.toFixed(0)} ms`);
console.log(`  ${((scheduled / ms) * 1000).toFixed(0)} pods/s, ${((ms * 1000) / N_PODS).toFixed(1)} µs per pod`);
console.log(`  RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
