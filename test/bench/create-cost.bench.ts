// Server CPU per create of three small objects (a Pod, an events.k8s.io/v1 Event, a ConfigMap), each alone
// at concurrency 32 after a warm-up of all three, for several builds of kite in the same run (rounds
// alternate between them), with the load average: which build spends less on the generic create path.
// The main thread's share is given apart: the rest is mostly the JIT compiling what the warm-up left.
// Run: npm run build && bun test/bench/create-cost.bench.ts /tmp/ref/dist/kite dist/kite   (N overrides 3,000 creates, WARM 1,500, ROUNDS 2)
import { loadavg } from "node:os";
import { startServer, TEST_TOKEN } from "../helpers/server.ts";
import { cpuOf, LeanHttps, load, mainThreadCpuOf, progress } from "./load.ts";

const bins = process.argv.slice(2);
if (bins.length === 0) throw new Error("usage: bun test/bench/create-cost.bench.ts KITE_BINARY...");
const N = Number(process.env.N ?? 3000), ROUNDS = Number(process.env.ROUNDS ?? 2);
const AUTH = `Authorization: Bearer ${TEST_TOKEN}\r\n`;

const kinds: { label: string; path: string; body: (name: string) => string }[] = [
  {
    label: "pod", path: "/api/v1/namespaces/default/pods",
    body: (name) => JSON.stringify({
      apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "x" } },
      spec: { containers: [{ name: "c", image: "nginx:1.21", resources: { requests: { cpu: "100m", memory: "64Mi" } } }] },
    }),
  },
  {
    label: "event", path: "/apis/events.k8s.io/v1/namespaces/default/events",
    body: (name) => JSON.stringify({
      apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name, namespace: "default" }, eventTime: "2026-11-24T05:00:00.000000Z",
      reportingController: "default-scheduler", reportingInstance: "default-scheduler-bench", action: "Binding", reason: "Scheduled",
      regarding: { kind: "Pod", namespace: "default", name, apiVersion: "v1" }, note: `Successfully assigned default/${name} to n1`, type: "Normal",
    }),
  },
  {
    label: "configmap", path: "/api/v1/namespaces/default/configmaps",
    body: (name) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { app: "x" } }, data: { "app.properties": "a=1\nb=2\n".repeat(10) } }),
  },
];

const WARM = Number(process.env.WARM ?? 1500);
console.log("| build | round | object | creates/s | server CPU per create | of it the main thread | load average (1 min) |\n|---|---|---|---|---|---|---|");
for (let round = 1; round <= ROUNDS; round++) {
  for (const bin of bins) {
    progress(`round ${round}: ${bin}`);
    const s = await startServer([], undefined, [bin]);
    const http = await LeanHttps.open(s.port, s.ca, 32);
    const post = async (k: (typeof kinds)[number], name: string) => {
      const r = await http.request("POST", k.path, k.body(name), AUTH);
      if (r.status !== 201) throw new Error(`${k.label} ${name}: ${r.status} ${r.body}`);
    };
    // the JIT has seen every path before measuring
    for (const k of kinds) await load(WARM, 32, (i) => post(k, `warm-${i}`));
    for (const k of kinds) {
      const c0 = cpuOf(s.proc.pid), m0 = mainThreadCpuOf(s.proc.pid);
      const rate = await load(N, 32, (i) => post(k, `x-${i}`));
      const us = (c: number) => Math.round((c * 1e6) / N);
      console.log(`| ${bin} | ${round} | ${k.label} | ${Math.round(rate)} | ${us(cpuOf(s.proc.pid) - c0)} µs | ${us(mainThreadCpuOf(s.proc.pid) - m0)} µs | ${loadavg()[0].toFixed(2)} |`);
    }
    http.close();
    await s.stop();
  }
}
process.exit(0);
