// Server CPU per create and creates/s of a small Deployment, for several checkouts of Kite in the same run
// (rounds alternate between them): which change made a create dearer.
// Run: bun test/bench/create-cpu.bench.ts /tmp/kite-ref /work/main   (each a checkout with node_modules)
import { startServer } from "../helpers/server.ts";
import { cpuOf, load, progress } from "./load.ts";

const trees = process.argv.slice(2);
if (trees.length === 0) throw new Error("usage: bun test/bench/create-cpu.bench.ts CHECKOUT...");
const N = Number(process.env.N_CREATE ?? 2000), ROUNDS = Number(process.env.ROUNDS ?? 2);

const deployment = (name: string) => JSON.stringify({
  apiVersion: "apps/v1", kind: "Deployment", metadata: { name, labels: { app: "web" } },
  spec: {
    replicas: 3, selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.21", ports: [{ containerPort: 80 }], resources: { requests: { cpu: "100m" }, limits: { cpu: "500m" } } }] } },
  },
});

console.log("| checkout | round | creates/s (concurrency 64) | server CPU per create |\n|---|---|---|---|");
for (let round = 1; round <= ROUNDS; round++) {
  for (const tree of trees) {
    progress(`round ${round}: ${tree}`);
    const s = await startServer(["--etcd-compaction-interval=0"], undefined, [process.execPath, `${tree}/cmd/main.ts`]);
    const post = (name: string) => s.req("/apis/apps/v1/namespaces/default/deployments", { method: "POST", body: deployment(name), headers: { "Content-Type": "application/json" } })
      .then(async (r) => { if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${await r.text()}`); });
    await load(300, 16, (i) => post(`warm-${i}`));
    const cpu0 = cpuOf(s.proc.pid);
    const rate = await load(N, 64, (i) => post(`d-${i}`));
    console.log(`| ${tree} | ${round} | ${Math.round(rate)} | ${Math.round(((cpuOf(s.proc.pid) - cpu0) * 1e6) / N)} µs |`);
    await s.stop();
  }
}
process.exit(0);
