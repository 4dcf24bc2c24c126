// Real `kite node-agent` processes against a test server: a unique node name, a root dir of its own,
// and what the node agent tests poll for (pods' status, processes' liveness).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCRILine } from "../../pkg/nodeagent/logs/crilog.ts";
import { startComponent, type TestComponent, until } from "./component.ts";
import { tempDir } from "./processes.ts";
import { TEST_TOKEN, type TestServer } from "./server.ts";

export interface TestNodeAgent extends TestComponent {
  name: string;
  rootDir: string;
  /** The main (HTTPS) port, as the Node reports it. */
  port: number;
}

/** Never the kubelet's default ports: the main port is any free one on loopback, the others are off unless a test names them. */
const PORT_FLAGS = ["--address=127.0.0.1", "--port=0", "--read-only-port=0", "--healthz-port=0"];

let seq = 0;

/** A node name no other test uses. */
export const uniqueNodeName = () => `node-${process.pid}-${Date.now().toString(36)}-${seq++}`;

/** Starts `kite node-agent` against `s` and resolves once its Node is registered. */
export async function startNodeAgent(s: TestServer, args: string[] = [], name = uniqueNodeName()): Promise<TestNodeAgent> {
  const rootDir = tempDir("kite-agent-");
  const ports = PORT_FLAGS.filter((f) => !args.some((a) => a.startsWith(f.split("=")[0] + "=")));
  let port = 0;
  const c = await startComponent(
    ["node-agent", `--kubeconfig=${s.kubeconfig}`, `--hostname-override=${name}`, `--root-dir=${rootDir}`, "--node-ip=127.0.0.1", ...ports, ...args],
    "the node to register", async () => {
      const r = await s.call("GET", `/api/v1/nodes/${name}`, undefined, { Authorization: `Bearer ${TEST_TOKEN}` });
      port = r.body?.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
      return r.status === 200;
    }, 20_000);
  return { ...c, name, rootDir, port };
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
