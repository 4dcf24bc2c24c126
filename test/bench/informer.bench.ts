// The client framework at the scheduler benchmark's scale: 5,000 nodes and 10,000 pods listed by informers
// (as `kite scheduler` starts), then 10,000 pod updates streamed through the pods informer's watch.
// Run: bun test/bench/informer.bench.ts   (N_NODES, N_PODS override the sizes)
import { clientFor } from "../helpers/client.ts";
import { killAll } from "../helpers/processes.ts";
import { startServer } from "../helpers/server.ts";
import { InformerFactory } from "../../pkg/client/informer.ts";
import { RESOURCES } from "../../pkg/client/resources.ts";
import { load, progress } from "./load.ts";

const N_NODES = Number(process.env.N_NODES ?? 5000);
const N_PODS = Number(process.env.N_PODS ?? 10000);

const s = await startServer();
try {
  const node = (i: number) => ({
    metadata: { name: `node-${i}`, labels: { "kubernetes.io/hostname": `node-${i}`, zone: `z${i % 3}` } },
    status: { capacity: { cpu: "8", memory: "32Gi", pods: "110" }, allocatable: { cpu: "8", memory: "32Gi", pods: "110" } },
  });
  const pod = (i: number) => ({
    metadata: { name: `pod-${i}`, labels: { app: `a${i % 50}` } },
    spec: { containers: [{ name: "c", image: "nginx:1.21", resources: { requests: { cpu: "100m", memory: "128Mi" } } }] },
  });
  progress(`creating ${N_NODES} nodes and ${N_PODS} pods`);
  await load(N_NODES, 32, (i) => s.call("POST", "/api/v1/nodes", node(i)));
  await load(N_PODS, 32, (i) => s.call("POST", "/api/v1/namespaces/default/pods", pod(i)));

  const client = await clientFor(s);
  const factory = new InformerFactory(client);
  const nodes = factory.informerFor(RESOURCES.nodes);
  const pods = factory.informerFor(RESOURCES.pods, { indexers: { node: (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []) } });
  let updates = 0;
  pods.addEventHandler({ update: () => { updates++; } });
  const heap0 = process.memoryUsage().heapUsed;
  let t0 = performance.now();
  factory.start();
  await factory.waitForCacheSync();
  const syncMs = performance.now() - t0;
  progress(`synced ${nodes.store.size} nodes and ${pods.store.size} pods in ${syncMs.toFixed(0)} ms; heap +${((process.memoryUsage().heapUsed - heap0) / 2 ** 20).toFixed(0)} MiB`);

  t0 = performance.now();
  const patching = load(N_PODS, 32, (i) => s.call("PATCH", `/api/v1/namespaces/default/pods/pod-${i}`, { metadata: { labels: { seen: "1" } } }, { "content-type": "application/merge-patch+json" }));
  await patching;
  const writeMs = performance.now() - t0;
  while (updates < N_PODS) await Bun.sleep(5);
  const streamMs = performance.now() - t0;
  progress(`${N_PODS} updates written in ${writeMs.toFixed(0)} ms, all delivered to the handler after ${streamMs.toFixed(0)} ms`);
  console.log(`| informer sync (${N_NODES} nodes + ${N_PODS} pods) | ${syncMs.toFixed(0)} ms |`);
  console.log(`| watch: ${N_PODS} pod updates delivered | ${(N_PODS / (streamMs / 1000)).toFixed(0)} /s (writer bound: ${(N_PODS / (writeMs / 1000)).toFixed(0)} /s) |`);
  factory.stop();
} finally {
  await s.stop();
  killAll();
}
