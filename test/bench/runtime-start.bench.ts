// The node agent's process runtime alone: N containers (`sleep`, in their own namespaces where this
// process may make them) started at once through ProcessRuntime.start, as a burst of pods does. Prints
// how long the starts held this process (until every start returned), how long until every shim had
// recorded its container, this process's CPU, and the CPU of the shims and what they run (stamper,
// container; from /proc/PID/schedstat: nanoseconds, not the 10 ms ticks of /proc/PID/stat). The
// reference, on the same run: the same N `sleep`s spawned directly.
// Run: bun test/bench/runtime-start.bench.ts   (N overrides 100, ROUNDS 3)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ProcessRuntime } from "../../pkg/nodeagent/runtime/runtime.ts";
import type { ContainerProcess } from "../../pkg/nodeagent/runtime/process.ts";
import { readPid } from "../../pkg/nodeagent/runtime/records.ts";
import { killAll, tempDir } from "../helpers/processes.ts";
import { stopContainers } from "../helpers/nodeagent.ts";

const N = Number(process.env.N ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

const onCpuMs = (pid: number) => { try { return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6; } catch { return 0; } };
const parentOf = (pid: string) => { try { return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]); } catch { return -1; } };
/** CPU (ms) of `roots` and every living descendant. */
function treeCpu(roots: number[]): number {
  const pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  const all = [...roots];
  for (let i = 0; i < all.length; i++) for (const p of pids) if (parentOf(p) === all[i]) all.push(Number(p));
  return all.reduce((a, p) => a + onCpuMs(p), 0);
}

async function round(rt: ProcessRuntime, root: string, r: number): Promise<string> {
  const cpu0 = process.cpuUsage(), t0 = performance.now();
  const runs = await Promise.all(Array.from({ length: N }, (_, i) => {
    const uid = `bench-${r}-${i}`;
    return rt.start(uid, "c", { argv: ["sleep", "3600"], env: { PATH: "/usr/bin:/bin" }, workingDir: "/", logPath: join(root, "pods", uid, "c", "0.log"), mounts: [], hostname: uid }, { restartCount: 0, lastState: {}, graceSeconds: 1 });
  }));
  const returned = performance.now() - t0;
  await Promise.all(runs.map((x) => x.proc.started()));
  const recorded = performance.now() - t0;
  const own = process.cpuUsage(cpu0);
  const shims = runs.map((x, i) => readPid(join(root, "pods", `bench-${r}-${i}`, "containers", "c", x.record.containerID.split("://")[1]))?.shimPid ?? 0).filter(Boolean);
  const shimCpu = treeCpu(shims);
  await stopAll(runs.map((x) => x.proc));
  for (let i = 0; i < N; i++) rt.forget(`bench-${r}-${i}`);
  return `starts returned ${returned.toFixed(0)} ms, all recorded ${recorded.toFixed(0)} ms; this process ${((own.user + own.system) / 1000).toFixed(0)} ms CPU, shims and their children ${shimCpu.toFixed(0)} ms CPU`;
}

async function stopAll(procs: ContainerProcess[]): Promise<void> {
  for (const p of procs) p.signal("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
}

/** The reference: N sleeps spawned from here, until the last spawn returned. */
async function direct(): Promise<string> {
  const t0 = performance.now();
  const procs = Array.from({ length: N }, () => Bun.spawn(["sleep", "3600"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" }));
  const took = performance.now() - t0;
  const cpu = treeCpu(procs.map((p) => p.pid));
  for (const p of procs) p.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
  return `${took.toFixed(0)} ms, their CPU ${cpu.toFixed(0)} ms`;
}

const root = tempDir("kite-runtime-bench-");
const rt = new ProcessRuntime({ rootDir: root, podMaxPids: -1 });
try {
  console.log(`process runtime (${rt.sandbox.unshare ? "namespaces" : "plain process groups"}; ${typeof rt.cgroups === "string" ? "no cgroups" : "cgroups"}), ${N} containers started at once`);
  for (let r = 0; r < ROUNDS; r++) {
    console.log(`  round ${r + 1}: ${await round(rt, root, r)}`);
    console.log(`  reference, ${N} sleeps spawned directly: ${await direct()}`);
  }
} finally {
  rt.close();
  stopContainers(root);
  killAll();
}
