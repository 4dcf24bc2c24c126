// Real `kite node-agent` processes against a test server: a unique node name, a root dir of its own,
// and what the node agent tests poll for (pods' status, processes' liveness).
import { readFileSync } from "node:fs";
import { startComponent, type TestComponent } from "./component.ts";
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
