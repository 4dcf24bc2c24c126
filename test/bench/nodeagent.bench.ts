// `kite node-agent` with 100 pods bound to it at once: each a long-running `sleep` with an exec readiness
// probe. Measures p50/p99 from a pod's binding (the POST's answer) to the pod seen Running and Ready in a
// watch, then the agent's RSS and CPU with the 100 pods idle. The reference, on the same run: the same 100
// `sleep` processes spawned directly by this process (what starting them costs with no agent at all).
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/nodeagent.bench.ts   (N_PODS, IDLE_SECONDS override)
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { clientFor } from "../helpers/client.ts";
import { startNodeAgent } from "../helpers/nodeagent.ts";
import { killAll } from "../helpers/processes.ts";
import { startServer } from "../helpers/server.ts";
import { RESOURCES } from "../../pkg/client/resources.ts";
import { cpuOf, progress } from "./load.ts";

const N_PODS = Number(process.env.N_PODS ?? 100);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
const NS = "default";

const statusMiB = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const rssMiB = (pid: number) => statusMiB(pid, "VmRSS");
/** /proc/PID/smaps_rollup in MiB: what of the RSS is private or shared, anonymous or file pages, and its PSS. */
function smaps(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of readFileSync(`/proc/${pid}/smaps_rollup`, "utf8").matchAll(/^(\w+):\s+(\d+) kB/gm)) out[m[1]] = Number(m[2]) / 1024;
  return out;
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ready = (p: any) => p.status?.phase === "Running" && p.status.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");

/** CPU seconds of `pid`'s descendants: the living ones (with what they reaped) and those it reaped. */
function childrenCpu(pid: number): number {
  const stat = (p: number | string) => readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ").map(Number);
  const procs = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try { return [{ pid: Number(d), f: stat(d) }]; } catch { return []; }
  });
  const own = stat(pid);
  let ticks = own[13] + own[14];
  const walk = (parent: number): void => {
    for (const p of procs) if (p.f[1] === parent) { ticks += p.f[11] + p.f[12] + p.f[13] + p.f[14]; walk(p.pid); }
  };
  walk(pid);
  return ticks / 100;
}

/** The reference: N `sleep` processes spawned and seen running, from this process. */
async function directSpawn(): Promise<number[]> {
  const took: number[] = [];
  const procs = await Promise.all(Array.from({ length: N_PODS }, async () => {
    const t0 = performance.now();
    const p = Bun.spawn(["sleep", "3600"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    await Bun.sleep(0);
    took.push(performance.now() - t0);
    return p;
  }));
  for (const p of procs) p.kill("SIGKILL");
  return took;
}

try {
  const s = await startServer();
  const agent = await startNodeAgent(s);
  const client = await clientFor(s);
  progress(`agent on node ${agent.name}; creating ${N_PODS} pods`);
  const names = Array.from({ length: N_PODS }, (_, i) => `bench-${i}`);
  await Promise.all(names.map((name) => client.create(RESOURCES.pods, {
    apiVersion: "v1", kind: "Pod", metadata: { name, namespace: NS },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"], readinessProbe: { exec: { command: ["true"] }, periodSeconds: 10 } }],
    },
  }, { namespace: NS })));

  const readyAt = new Map<string, number>(), runningAt = new Map<string, number>(), writes = new Map<string, number>();
  const watch = client.watch(RESOURCES.pods, { namespace: NS });
  const allReady = (async () => {
    for await (const ev of watch) {
      const p = ev.object, name = p.metadata.name;
      // the agent's status writes before Ready (the binding's own change has no status)
      if (!readyAt.has(name) && p.status?.startTime) writes.set(name, (writes.get(name) ?? 0) + 1);
      if (!runningAt.has(name) && p.status?.containerStatuses?.some((c: any) => c.state?.running)) runningAt.set(name, performance.now());
      if (!readyAt.has(name) && ready(p)) readyAt.set(name, performance.now());
      if (readyAt.size === N_PODS) return;
    }
  })();

  progress(`binding ${N_PODS} pods at once`);
  const agentCpu0 = cpuOf(agent.proc.pid), childCpu0 = childrenCpu(agent.proc.pid), serverCpu0 = cpuOf(s.proc.pid);
  const boundAt = new Map<string, number>();
  await Promise.all(names.map(async (name) => {
    await client.create(RESOURCES.pods, { apiVersion: "v1", kind: "Binding", metadata: { name, namespace: NS }, target: { kind: "Node", name: agent.name } }, { namespace: NS, subresource: "binding" });
    boundAt.set(name, performance.now());
  }));
  const deadline = setTimeout(() => { progress(`only ${readyAt.size} of ${N_PODS} ready after 60 s`); process.exit(1); }, 60_000);
  await allReady;
  clearTimeout(deadline);
  const agentCpu = cpuOf(agent.proc.pid) - agentCpu0, childCpu = childrenCpu(agent.proc.pid) - childCpu0, serverCpu = cpuOf(s.proc.pid) - serverCpu0;
  const latencies = names.map((n) => Math.max(0, readyAt.get(n)! - boundAt.get(n)!));
  const toRunning = names.map((n) => Math.max(0, runningAt.get(n)! - boundAt.get(n)!));
  const statusWrites = names.reduce((a, n) => a + (writes.get(n) ?? 0), 0);

  if (process.env.SHOW_REQUESTS) {
    const m = await s.call("GET", "/metrics", undefined, { Authorization: "Bearer test" });
    console.log(String(m.body).split("\n").filter((l) => l.startsWith("apiserver_request_duration_seconds_sum") || l.startsWith("apiserver_request_total")).join("\n"));
  }
  progress(`all ready; the agent idles with them for ${IDLE_SECONDS} s`);
  await Bun.sleep(5000);
  const pid = agent.proc.pid;
  const cpu0 = cpuOf(pid), t0 = performance.now();
  await Bun.sleep(IDLE_SECONDS * 1000);
  const idleCpu = (cpuOf(pid) - cpu0) / ((performance.now() - t0) / 1000);
  const sockets = readdirSync(`/proc/${pid}/fd`).filter((fd) => { try { return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:"); } catch { return false; } }).length;
  const rss = rssMiB(pid), anon = statusMiB(pid, "RssAnon"), file = statusMiB(pid, "RssFile"), sm = smaps(pid);

  const direct = await directSpawn();
  console.log(`node agent, ${N_PODS} pods bound at once (sleep + exec readiness probe each)`);
  console.log(`  binding → Running+Ready: p50 ${pct(latencies, 50).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`);
  console.log(`  binding → container seen running: p50 ${pct(toRunning, 50).toFixed(0)} ms, p99 ${pct(toRunning, 99).toFixed(0)} ms`);
  console.log(`  CPU from the bindings to all Ready: agent ${(agentCpu * 1000).toFixed(0)} ms, its child processes ${(childCpu * 1000).toFixed(0)} ms, API server ${(serverCpu * 1000).toFixed(0)} ms; status writes seen per pod until Ready: ${(statusWrites / N_PODS).toFixed(2)}`);
  console.log(`  agent idle with ${N_PODS} pods: RSS ${rss.toFixed(0)} MiB (private ${anon.toFixed(0)}, the executable's and other files' pages ${file.toFixed(0)}), CPU ${(idleCpu * 100).toFixed(2)} % of one core (over ${IDLE_SECONDS} s), ${sockets} sockets open`);
  const mib = (k: string) => sm[k].toFixed(1);
  console.log(`  agent smaps_rollup (MiB): Rss ${mib("Rss")}, Pss ${mib("Pss")} (anonymous ${mib("Pss_Anon")}, file ${mib("Pss_File")}); private clean ${mib("Private_Clean")}, private dirty ${mib("Private_Dirty")}, shared clean ${mib("Shared_Clean")}, shared dirty ${mib("Shared_Dirty")}; anonymous ${mib("Anonymous")}`);
  console.log(`  reference, ${N_PODS} sleeps spawned directly: p50 ${pct(direct, 50).toFixed(1)} ms, p99 ${pct(direct, 99).toFixed(1)} ms`);
  await agent.stop();
  await s.stop();
} finally {
  killAll();
}
