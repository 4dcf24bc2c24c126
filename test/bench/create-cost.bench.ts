// Server CPU per create of three small objects (a Pod, an events.k8s.io/v1 Event, a ConfigMap) and per
// binding of those pods, for several builds of kite at once: one server per build, all started together
// and warmed on every path, then each write is sent to them in turns of BATCH at concurrency 32, so every
// build meets the same load from the machine's other work (figures measured minutes apart on a shared
// machine differ more than the builds do). The main thread's share is given apart: the rest is mostly the
// JIT compiling what the warm-up left.
// Run: npm run build && bun test/bench/create-cost.bench.ts /tmp/ref/dist/kite dist/kite
//      (N: writes of each kind per build, 6,000; BATCH: writes per turn, 500; WARM: warm-up writes of each kind, 1,500)
import { loadavg } from "node:os";
import { startServer, TEST_TOKEN, type TestServer } from "../helpers/server.ts";
import { cpuOf, LeanHttps, load, mainThreadCpuOf, progress } from "./load.ts";

const bins = process.argv.slice(2);
if (bins.length === 0) throw new Error("usage: bun test/bench/create-cost.bench.ts KITE_BINARY...");
const N = Number(process.env.N ?? 6000), BATCH = Number(process.env.BATCH ?? 500), WARM = Number(process.env.WARM ?? 1500);
const AUTH = `Authorization: Bearer ${TEST_TOKEN}\r\n`;

const kinds: { label: string; path: string; body: (name: string) => string }[] = [
  {
    label: "pod create", path: "/api/v1/namespaces/default/pods",
    body: (name) => JSON.stringify({
      apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "x" } },
      spec: { containers: [{ name: "c", image: "nginx:1.21", resources: { requests: { cpu: "100m", memory: "64Mi" } } }] },
    }),
  },
  {
    label: "event create", path: "/apis/events.k8s.io/v1/namespaces/default/events",
    body: (name) => JSON.stringify({
      apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name, namespace: "default" }, eventTime: "2026-11-24T05:00:00.000000Z",
      reportingController: "default-scheduler", reportingInstance: "default-scheduler-bench", action: "Binding", reason: "Scheduled",
      regarding: { kind: "Pod", namespace: "default", name, apiVersion: "v1" }, note: `Successfully assigned default/${name} to n1`, type: "Normal",
    }),
  },
  {
    label: "configmap create", path: "/api/v1/namespaces/default/configmaps",
    body: (name) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { app: "x" } }, data: { "app.properties": "a=1\nb=2\n".repeat(10) } }),
  },
  {
    // not a create: the write that follows a pod's, through the store's compare-and-swap (the pods above)
    label: "binding", path: "/api/v1/namespaces/default/pods/NAME/binding",
    body: (name) => JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name }, target: { kind: "Node", name: "n1" } }),
  },
];

interface Build { bin: string; s: TestServer; http: LeanHttps }
const builds: Build[] = [];
for (const bin of bins) {
  progress(`starting ${bin}`);
  const s = await startServer([], undefined, [bin]);
  builds.push({ bin, s, http: await LeanHttps.open(s.port, s.ca, 32) });
}
const post = async (b: Build, k: (typeof kinds)[number], name: string) => {
  const r = await b.http.request("POST", k.path.replace("NAME", name), k.body(name), AUTH);
  if (r.status !== 201) throw new Error(`${b.bin} ${k.label} ${name}: ${r.status} ${r.body}`);
};
// the JIT has seen every path before measuring
for (const b of builds) for (const k of kinds) await load(WARM, 32, (i) => post(b, k, `warm-${i}`));

const loads: number[] = [];
console.log("| write | build | per second | server CPU per write | of it the main thread |\n|---|---|---|---|---|");
for (const k of kinds) {
  progress(k.label);
  const sum = builds.map(() => ({ cpu: 0, main: 0, secs: 0 }));
  for (let done = 0; done < N; done += BATCH) {
    for (const [j, b] of builds.entries()) {
      const c0 = cpuOf(b.s.proc.pid), m0 = mainThreadCpuOf(b.s.proc.pid), t0 = performance.now();
      await load(BATCH, 32, (i) => post(b, k, `x-${done + i}`));
      sum[j].secs += (performance.now() - t0) / 1000;
      sum[j].cpu += cpuOf(b.s.proc.pid) - c0;
      sum[j].main += mainThreadCpuOf(b.s.proc.pid) - m0;
    }
    loads.push(loadavg()[0]);
  }
  const us = (c: number) => `${Math.round((c * 1e6) / N)} µs`;
  for (const [j, b] of builds.entries()) console.log(`| ${k.label} | ${b.bin} | ${Math.round(N / sum[j].secs)} | ${us(sum[j].cpu)} | ${us(sum[j].main)} |`);
}
console.log(`\nload average (1 min) while measuring: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
for (const b of builds) { b.http.close(); await b.s.stop(); }
process.exit(0);
