// Real `kite node-agent` processes against a test server: a unique node name, a root dir of its own,
// and what the node agent tests poll for (pods' status, processes' liveness).
import { readFileSync } from "node:fs";
import { startComponent, type TestComponent } from "./component.ts";
import { tempDir } from "./processes.ts";
import type { TestServer } from "./server.ts";

export interface TestNodeAgent extends TestComponent {
  name: string;
  rootDir: string;
}

let seq = 0;

/** A node name no other test uses. */
export const uniqueNodeName = () => `node-${process.pid}-${Date.now().toString(36)}-${seq++}`;

/**
 * Starts `kite node-agent` against `s` and resolves once its Node is registered. Its pods use the host's
 * network unless `args` say otherwise: only a test inside a network namespace of its own (netns.ts) may
 * let the agent make bridges, veths and namespaces.
 */
export async function startNodeAgent(s: TestServer, args: string[] = [], name = uniqueNodeName(), rootDir = tempDir("kite-agent-")): Promise<TestNodeAgent> {
  const network = args.some((a) => a.startsWith("--pod-network")) ? [] : ["--pod-network=host"];
  const c = await startComponent(
    ["node-agent", `--kubeconfig=${s.kubeconfig}`, `--hostname-override=${name}`, `--root-dir=${rootDir}`, "--node-ip=127.0.0.1", ...network, ...args],
    "the node to register", async () => (await s.call("GET", `/api/v1/nodes/${name}`)).status === 200, 20_000);
  return { ...c, name, rootDir };
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
