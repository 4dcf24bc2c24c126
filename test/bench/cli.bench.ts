// kite get / kite apply against stock kubectl on the same server (issue 7 item 10).
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/cli.bench.ts
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";

const kite = process.env.KITE_BIN ?? "dist/kite";
const RUNS = 15;
const s = await startServer(["--etcd-compaction-interval=0"]);
const pod = (i: number) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: `p-${i}`, labels: { app: "bench" } }, spec: { containers: [{ name: "c", image: "nginx:1.25" }] } });
process.stderr.write("  creating 1,000 pods\n");
for (let i = 0; i < 1000; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => s.call("POST", "/api/v1/namespaces/default/pods", pod(i + j))));

function time(cmd: string[]): number {
  const t = performance.now();
  const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
  return performance.now() - t;
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const bench = (cmd: string[]) => { time(cmd); return median(Array.from({ length: RUNS }, () => time(cmd))); };

process.stderr.write("  kite get pods vs kubectl get pods\n");
const kiteGet = bench([kite, "get", "pods", `--kubeconfig=${s.kubeconfig}`]);
const kubectlGet = bench(["kubectl", "get", "pods", `--kubeconfig=${s.kubeconfig}`]);

process.stderr.write("  kite apply -f of 1,000 objects\n");
const dir = tempDir("kite-cli-bench-");
const manifest = join(dir, "cms.yaml");
writeFileSync(manifest, Array.from({ length: 1000 }, (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\ndata:\n  k: "v${i}"\n`).join("---\n"));
const kiteApply = time([kite, "apply", "-f", manifest, `--kubeconfig=${s.kubeconfig}`]);
const kiteReapply = time([kite, "apply", "-f", manifest, `--kubeconfig=${s.kubeconfig}`]);
await s.call("DELETE", "/api/v1/namespaces/default/configmaps");
const kubectlApply = time(["kubectl", "apply", "--server-side", "-f", manifest, `--kubeconfig=${s.kubeconfig}`]);
await s.stop();

console.log(`
Command: npm run build && KITE_BIN=dist/kite bun test/bench/cli.bench.ts (median of ${RUNS} runs for get)

| measure | kite | stock kubectl | kite / kubectl | target |
|---|---:|---:|---:|---|
| get pods, 1,000 pods (wall ms) | ${kiteGet.toFixed(0)} | ${kubectlGet.toFixed(0)} | ${Math.round((100 * kiteGet) / kubectlGet)} % | ≤ 60 % |
| apply -f of 1,000 ConfigMaps, server-side (wall ms) | ${kiteApply.toFixed(0)} | ${kubectlApply.toFixed(0)} | ${Math.round((100 * kiteApply) / kubectlApply)} % | |
| re-apply unchanged (wall ms) | ${kiteReapply.toFixed(0)} | | | |
`);
process.exit(0);
