// `kite scheduler` end to end: 5,000 Node objects and 10,000 pods created through the API server, the
// scheduler a separate process on the same cores. Measures pods/s from the first create to the last pod
// seen bound (through a watch), p50/p99 from a pod's create to its binding at a steady 200 pods/s, and the
// scheduler's RSS holding the whole cluster. The reference, on the same run and server: the API work a
// scheduler causes (the same creates, and one binding per pod POSTed directly), with no scheduling.
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/scheduler.bench.ts
//      (N_NODES, N_PODS, STEADY_RATE, STEADY_SECONDS, SETTLE_SECONDS override the sizes; SCHED_PROFILE_DIR=DIR runs the
//      scheduler from source under Bun's CPU profiler, or its heap profiler with SCHED_PROFILE_KIND=heap,
//      writing a markdown profile into DIR; SCHED_ENV="A=1 B=2" adds to the scheduler's environment alone,
//      e.g. SCHED_ENV="BUN_OPTIONS=--smol" or SCHED_ENV="BUN_JSC_useFTLJIT=0")
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clientFor } from "../helpers/client.ts";
import { killAll, tempDir, track } from "../helpers/processes.ts";
import { freePort, KITE, ROOT, startServer, TEST_TOKEN, type TestServer } from "../helpers/server.ts";
import { RESOURCES } from "../../pkg/client/resources.ts";
import { cpuOf, LeanHttps, load, progress } from "./load.ts";

const N_NODES = Number(process.env.N_NODES ?? 5000);
const N_PODS = Number(process.env.N_PODS ?? 10000);
const STEADY_RATE = Number(process.env.STEADY_RATE ?? 200);
const STEADY_SECONDS = Number(process.env.STEADY_SECONDS ?? 10);
const SETTLE_SECONDS = Number(process.env.SETTLE_SECONDS ?? 10);
const AUTH = `Authorization: Bearer ${TEST_TOKEN}\r\n`;

const node = (i: number) => JSON.stringify({
  apiVersion: "v1", kind: "Node",
  metadata: { name: `node-${i}`, labels: { "kubernetes.io/hostname": `node-${i}`, "topology.kubernetes.io/zone": `zone-${i % 10}` } },
  status: {
    capacity: { cpu: "8", memory: "32Gi", pods: "110" }, allocatable: { cpu: "8", memory: "32Gi", pods: "110" },
    conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" }],
  },
});
const pod = (name: string) => JSON.stringify({
  apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "bench" } },
  spec: { containers: [{ name: "c", image: "nginx:1.21", resources: { requests: { cpu: "100m", memory: "128Mi" } } }] },
});
const memMiB = (pid: number, field: "VmRSS" | "VmHWM") => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
/** A process's anonymous memory and its resident file pages (MiB), from smaps_rollup; zeros once it has exited. */
function anonAndFile(pid: number): [number, number] {
  let t = "";
  try { t = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"); } catch { return [0, 0]; }
  const mib = (f: string) => Number(new RegExp(`^${f}:\\s+(\\d+)`, "m").exec(t)?.[1] ?? 0) / 1024;
  return [mib("Anonymous"), mib("Rss") - mib("Anonymous")];
}
const pct = (xs: number[], p: number) => xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN;

/** The cumulative buckets (upper bound in ms → count) of the scheduler's own scheduling-and-binding latency. */
async function schedulingDurations(port: number): Promise<Map<number, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<number, number>();
  for (const m of text.matchAll(/^scheduler_e2e_scheduling_duration_seconds_bucket\{(?:[^}]*,)?le="([^"]+)"[^}]*\} (\d+)/gm)) {
    const le = m[1] === "+Inf" ? Infinity : Number(m[1]) * 1000;
    out.set(le, (out.get(le) ?? 0) + Number(m[2]));
  }
  return out;
}

/** p50 and p99 (as "≤ bucket bound") of the attempts between two scrapes. */
function bucketQuantiles(after: Map<number, number>, before: Map<number, number>) {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  const at = (q: number) => bounds.find((b) => (after.get(b)! - (before.get(b) ?? 0)) >= q * total) ?? Infinity;
  return { p50: at(0.5), p99: at(0.99), n: total };
}

/** Resolves each pod name's promise when a watch of the namespace first shows the pod bound. */
async function watchBindings(s: TestServer, ns: string) {
  const client = await clientFor(s);
  const bound = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const abort = new AbortController();
  const ready = (async () => {
    for await (const ev of client.watch(RESOURCES.pods, { namespace: ns, signal: abort.signal })) {
      const name = ev.object?.metadata?.name;
      if (ev.object?.spec?.nodeName && name && !bound.has(name)) {
        bound.set(name, performance.now());
        waiters.get(name)?.();
      }
    }
  })();
  void ready.catch(() => {});
  await Bun.sleep(200); // the watch is open before the first create
  return {
    bound,
    until: (name: string) => bound.has(name) ? Promise.resolve() : new Promise<void>((r) => waiters.set(name, r)),
    stop: () => abort.abort(),
  };
}

/** Runs `op` for STEADY_RATE × STEADY_SECONDS pods, each started when due; returns each one's latency (ms). */
async function steady(prefix: string, op: (name: string, sent: number) => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  const n = STEADY_RATE * STEADY_SECONDS, start = performance.now();
  await Promise.all(Array.from({ length: n }, async (_, i) => {
    const wait = start + (i * 1000) / STEADY_RATE - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    out.push(await op(`${prefix}-${i}`, performance.now()));
  }));
  return out;
}

async function createPods(http: LeanHttps, ns: string, n: number, prefix: string) {
  return load(n, 64, async (i) => {
    const r = await http.request("POST", `/api/v1/namespaces/${ns}/pods`, pod(`${prefix}-${i}`), AUTH);
    if (r.status !== 201) throw new Error(`create pod: ${r.status} ${r.body}`);
  });
}

const s = await startServer([]);
try {
  const http = await LeanHttps.open(s.port, s.ca, 64);
  for (const ns of ["bench", "ref", "steady"]) await s.call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
  progress(`creating ${N_NODES} nodes`);
  await load(N_NODES, 64, async (i) => {
    const r = await http.request("POST", "/api/v1/nodes", node(i), AUTH);
    if (r.status !== 201) throw new Error(`create node: ${r.status} ${r.body}`);
    // TaintNodesByCondition admission gave the new node the not-ready taint; the node lifecycle controller
    // (not running here) takes it off a Ready node
    const p = await http.request("PATCH", `/api/v1/nodes/node-${i}`, JSON.stringify({ spec: { taints: null } }), `${AUTH}Content-Type: application/merge-patch+json\r\n`);
    if (p.status !== 200) throw new Error(`untaint node: ${p.status} ${p.body}`);
  });

  // The reference: creates, then one binding per pod, with no scheduler running.
  progress(`reference: ${N_PODS} creates and ${N_PODS} bindings, no scheduler`);
  const ref0 = performance.now(), refCpu0 = cpuOf(s.proc.pid);
  await createPods(http, "ref", N_PODS, "p");
  await load(N_PODS, 64, async (i) => {
    const body = JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name: `p-${i}` }, target: { kind: "Node", name: `node-${i % N_NODES}` } });
    const r = await http.request("POST", `/api/v1/namespaces/ref/pods/p-${i}/binding`, body, AUTH);
    if (r.status !== 201) throw new Error(`binding: ${r.status} ${r.body}`);
  });
  const refRate = N_PODS / ((performance.now() - ref0) / 1000);
  const refCpu = ((cpuOf(s.proc.pid) - refCpu0) * 1e6) / N_PODS;
  // The reference pods leave, so the scheduler holds the benchmark's 10,000 pods only.
  await s.call("DELETE", "/api/v1/namespaces/ref/pods", { gracePeriodSeconds: 0 });

  progress("starting kite scheduler");
  const dir = tempDir("kite-sched-bench-");
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, readFileSync(s.kubeconfig));
  const profile = process.env.SCHED_PROFILE_DIR;
  const launcher = profile ? [process.execPath, process.env.SCHED_PROFILE_KIND === "heap" ? "--heap-prof-md" : "--cpu-prof-md", `--${process.env.SCHED_PROFILE_KIND === "heap" ? "heap" : "cpu"}-prof-dir=${profile}`, join(ROOT, "cmd/main.ts")] : KITE;
  const metricsPort = await freePort();
  // SCHED_ENV="A=1 B=2": extra environment for the scheduler process alone (runtime knobs such as BUN_JSC_*)
  const schedEnv = Object.fromEntries((process.env.SCHED_ENV ?? "").split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
  const sched = Bun.spawn([...launcher, "scheduler", `--kubeconfig=${kubeconfig}`, "--leader-elect=false", "--secure-port=0", `--port=${metricsPort}`, "--address=127.0.0.1",
    "--kube-api-qps=10000", "--kube-api-burst=10000"], { stdout: "ignore", stderr: "inherit", env: { ...process.env, ...schedEnv } });
  track(sched);
  // RSS split: anonymous memory (the scheduler's own) and file pages (the executable, shared with the API server)
  let peakAnon = 0, fileAtPeak = 0;
  const sampler = setInterval(() => {
    const [anon, file] = anonAndFile(sched.pid);
    if (anon > peakAnon) [peakAnon, fileAtPeak] = [anon, file];
  }, 200);
  // warm up: the scheduler has listed the cluster once these are bound
  const warm = await watchBindings(s, "steady");
  await createPods(http, "steady", 200, "warm");
  await Promise.all(Array.from({ length: 200 }, (_, i) => warm.until(`warm-${i}`)));
  warm.stop();

  progress(`throughput: ${N_PODS} pods`);
  const w = await watchBindings(s, "bench");
  const apiCpu0 = cpuOf(s.proc.pid), schedCpu0 = cpuOf(sched.pid);
  const t0 = performance.now();
  const createRate = await createPods(http, "bench", N_PODS, "p");
  await Promise.all(Array.from({ length: N_PODS }, (_, i) => w.until(`p-${i}`)));
  const seconds = (performance.now() - t0) / 1000;
  const apiCpu = ((cpuOf(s.proc.pid) - apiCpu0) * 1e6) / N_PODS, schedCpu = ((cpuOf(sched.pid) - schedCpu0) * 1e6) / N_PODS;
  const rssAfterBurst = memMiB(sched.pid, "VmRSS");
  w.stop();

  progress(`latency: ${STEADY_RATE} pods/s for ${STEADY_SECONDS} s`);
  const st = await watchBindings(s, "steady");
  const e2e0 = await schedulingDurations(metricsPort);
  const latencies = await steady("s", async (name, sent) => {
    const r = await http.request("POST", "/api/v1/namespaces/steady/pods", pod(name), AUTH);
    if (r.status !== 201) throw new Error(`create pod: ${r.status} ${r.body}`);
    await st.until(name);
    return st.bound.get(name)! - sent;
  });
  st.stop();
  const inScheduler = bucketQuantiles(await schedulingDurations(metricsPort), e2e0);
  // The floor: the same two durable writes per pod at the same rate, the binding POSTed at once by hand.
  // The scheduler is idle meanwhile: these pods name a scheduler that does not exist.
  progress(`latency reference: ${STEADY_RATE} creates + direct bindings/s for ${STEADY_SECONDS} s`);
  const direct = await steady("d", async (name, sent) => {
    const body = JSON.parse(pod(name));
    body.spec.schedulerName = "nobody";
    const c = await http.request("POST", "/api/v1/namespaces/steady/pods", JSON.stringify(body), AUTH);
    if (c.status !== 201) throw new Error(`create pod: ${c.status} ${c.body}`);
    const b = await http.request("POST", `/api/v1/namespaces/steady/pods/${name}/binding`, JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name }, target: { kind: "Node", name: "node-0" } }), AUTH);
    if (b.status !== 201) throw new Error(`binding: ${b.status} ${b.body}`);
    return performance.now() - sent;
  });
  // what the scheduler holds once the garbage of the bursts is collected (its live heap is ~40 MB)
  await Bun.sleep(SETTLE_SECONDS * 1000);
  const rssSettled = memMiB(sched.pid, "VmRSS"), rssPeak = memMiB(sched.pid, "VmHWM"), [anonSettled, fileSettled] = anonAndFile(sched.pid);
  clearInterval(sampler);

  console.log(`
| measure (${N_NODES} nodes, ${N_PODS} pods) | value |
|---|---|
| pods/s, first create to last bound (scheduler process) | ${Math.round(N_PODS / seconds)} |
| pod creates/s during that run | ${Math.round(createRate)} |
| reference: creates + direct bindings, pods/s (no scheduler) | ${Math.round(refRate)} |
| API server CPU per pod: with scheduler / reference | ${Math.round(apiCpu)} µs / ${Math.round(refCpu)} µs |
| scheduler CPU per pod | ${Math.round(schedCpu)} µs |
| create → bound at ${STEADY_RATE} pods/s: p50 / p99 / max | ${pct(latencies, 50).toFixed(1)} / ${pct(latencies, 99).toFixed(1)} / ${Math.max(...latencies).toFixed(1)} ms |
| reference: create + direct binding at ${STEADY_RATE} pods/s: p50 / p99 / max | ${pct(direct, 50).toFixed(1)} / ${pct(direct, 99).toFixed(1)} / ${Math.max(...direct).toFixed(1)} ms |
| the scheduler's own part of it (scheduler_e2e_scheduling_duration_seconds): p50 / p99 | ≤ ${inScheduler.p50} / ≤ ${inScheduler.p99} ms (${inScheduler.n} attempts) |
| scheduler RSS holding the cluster: right after the ${N_PODS}-pod burst / ${SETTLE_SECONDS} s after the last pod / peak | ${rssAfterBurst.toFixed(0)} / ${rssSettled.toFixed(0)} / ${rssPeak.toFixed(0)} MiB |
| of which anonymous / file pages: ${SETTLE_SECONDS} s after the last pod / at the peak of anonymous (sampled every 200 ms) | ${anonSettled.toFixed(0)} / ${fileSettled.toFixed(0)}, ${peakAnon.toFixed(0)} / ${fileAtPeak.toFixed(0)} MiB |`);
  sched.kill("SIGTERM");
  await sched.exited;
  http.close();
} finally {
  await s.stop();
  killAll();
}
process.exit(0);
