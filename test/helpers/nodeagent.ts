// Real `kite node-agent` processes against a test server: a unique node name, a root dir of its own,
// and what the node agent tests poll for (pods' status, processes' liveness, containers' output). The
// containers an agent starts outlive it (as upstream's kubelet's do): stop() ends them too, and so does the
// end of the run.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseCRILine } from "../../pkg/nodeagent/logs/crilog.ts";
import { Cgroups } from "../../pkg/nodeagent/runtime/cgroups.ts";
import { containerDir, isSame, readPid, readRecord, runPrefix, type PidRecord } from "../../pkg/nodeagent/runtime/records.ts";
import { canMount, mountPointsUnder } from "../../pkg/nodeagent/volumes/tmpfs.ts";
import { startComponent, type TestComponent, until } from "./component.ts";
import { atCleanup, tempDir } from "./processes.ts";
import { TEST_TOKEN, type TestServer } from "./server.ts";

export interface TestNodeAgent extends TestComponent {
  name: string;
  rootDir: string;
  /** The main (HTTPS) port, as the Node reports it. */
  port: number;
  /** Stops the agent only: its containers keep running (for a next agent on the same root dir). */
  stopAgent(signal?: NodeJS.Signals | number): Promise<number>;
}

/** Never the kubelet's default ports: the main port is any free one on loopback, the others are off unless a test names them. */
const PORT_FLAGS = ["--address=127.0.0.1", "--port=0", "--read-only-port=0", "--healthz-port=0"];

let seq = 0;

/** A node name no other test uses. */
export const uniqueNodeName = () => `node-${process.pid}-${Date.now().toString(36)}-${seq++}`;

/**
 * Starts `kite node-agent` against `s` and resolves once its Node is registered. Its pods use the host's
 * network and it proxies no Service unless `args` say otherwise: only a test inside a network namespace of
 * its own (netns.ts) may let the agent make bridges, veths, namespaces and packet-filter rules. The containers it leaves running stop at cleanup.
 */
export async function startNodeAgent(s: TestServer, args: string[] = [], name = uniqueNodeName(), rootDir = tempDir("kite-agent-")): Promise<TestNodeAgent> {
  atCleanup(() => stopContainers(rootDir));
  const network = [
    ...(args.some((a) => a.startsWith("--pod-network")) ? [] : ["--pod-network=host"]),
    ...(args.some((a) => a.startsWith("--proxy-mode")) ? [] : ["--proxy-mode=none"]),
  ];
  const ports = PORT_FLAGS.filter((f) => !args.some((a) => a.startsWith(f.split("=")[0] + "=")));
  let port = 0;
  const c = await startComponent(
    ["node-agent", ...(args.some((a) => a.startsWith("--kubeconfig=")) ? [] : [`--kubeconfig=${s.kubeconfig}`]), `--hostname-override=${name}`, `--root-dir=${rootDir}`, "--node-ip=127.0.0.1", ...network, ...ports, ...args],
    "the node to register", async () => {
      const r = await s.call("GET", `/api/v1/nodes/${name}`, undefined, { Authorization: `Bearer ${TEST_TOKEN}` });
      port = r.body?.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
      return r.status === 200;
    }, 20_000);
  return {
    ...c, name, rootDir, port,
    stopAgent: c.stop,
    async stop(signal) {
      const code = await c.stop(signal);
      stopContainers(rootDir);
      return code;
    },
  };
}

/** SIGKILLs the process groups (and shims) recorded under an agent's root dir, if still the recorded processes, and removes their pods' cgroups and tmpfs mounts. */
export function stopContainers(rootDir: string): void {
  const ls = (d: string) => { try { return readdirSync(d); } catch { return []; } };
  const killed: PidRecord[] = [], cgroups = new Set<string>();
  for (const uid of ls(join(rootDir, "pods"))) {
    for (const c of ls(join(rootDir, "pods", uid, "containers"))) {
      const dir = join(rootDir, "pods", uid, "containers", c);
      for (const f of ls(dir).filter((f) => f.endsWith(".pid"))) {
        const p = readPid(join(dir, f.slice(0, -4)));
        if (!p) continue;
        if (isSame(p.pid, p.start)) try { process.kill(-p.pid, "SIGKILL"); } catch { /* gone */ }
        if (isSame(p.shimPid, p.shimStart)) try { process.kill(p.shimPid, "SIGKILL"); } catch { /* gone */ }
        killed.push(p);
      }
      for (const d of readRecord(dir)?.cgroups ?? []) cgroups.add(dirname(d));
    }
  }
  // the pods' cgroups go once their processes have
  const deadline = Date.now() + 5000;
  while (killed.some((p) => isSame(p.pid, p.start) || isSame(p.shimPid, p.shimStart)) && Date.now() < deadline) Bun.sleepSync(10);
  Cgroups.removeRun([...cgroups]);
  // memory-backed volumes of the pods left behind
  if (canMount()) for (const p of mountPointsUnder(rootDir)) Bun.spawnSync(["umount", p], { stdout: "ignore", stderr: "ignore" });
}

/** True while a process with this pid runs: a zombie (dead, not yet reaped by its new parent) is not. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** The host pids of a container's current run: its recorded leader and the rest of its process group. */
export function containerPids(rootDir: string, uid: string, container: string): number[] {
  const dir = containerDir(rootDir, uid, container);
  const r = readRecord(dir);
  const p = r && readPid(runPrefix(dir, r.containerID));
  if (!p || !isSame(p.pid, p.start)) return [];
  const group: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === p.pid && alive(Number(e))) group.push(Number(e));
    } catch { /* gone */ }
  }
  return group.sort((a, b) => a - b);
}

/** A container run's log file under the agent's --root-dir. */
export const logFile = (agent: TestNodeAgent, podUid: string, container: string, run = 0) =>
  join(agent.rootDir, "pods", podUid, "containers", container, `${run}.log`);

/** What a container wrote, from its CRI-format log file ("" while there is none). */
export function logOutput(path: string): string {
  if (!existsSync(path)) return "";
  return readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => parseCRILine(l)!.content).join("");
}

/**
 * The output once `done` holds of it (a string: once it reads just that); its stamper writes a moment
 * after the container. After 5 s, what it reads then, for the test's assertion to show.
 */
export function logOutputWhen(path: string, done: string | ((text: string) => boolean) = (t) => t !== ""): Promise<string> {
  const ok = typeof done === "string" ? (t: string) => t === done : done;
  return until(async () => { const t = logOutput(path); return ok(t) ? t : undefined; }, `the output in ${path}`, 5000).catch(() => logOutput(path));
}
