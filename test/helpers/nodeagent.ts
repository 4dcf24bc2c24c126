// Real `kite node-agent` processes against a test server: a unique node name, a root dir of its own,
// and what the node agent tests poll for (pods' status, processes' liveness).
import type { Subprocess } from "bun";
import { readFileSync } from "node:fs";
import { track, tempDir } from "./processes.ts";
import { until } from "./scheduler.ts";
import { KITE, type TestServer } from "./server.ts";

export interface TestNodeAgent {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  name: string;
  rootDir: string;
  output(): string;
  stop(signal?: NodeJS.Signals | number): Promise<number>;
}

let seq = 0;

/** A node name no other test uses. */
export const uniqueNodeName = () => `node-${process.pid}-${Date.now().toString(36)}-${seq++}`;

/** Starts `kite node-agent` against `s` and resolves once its Node is registered. */
export async function startNodeAgent(s: TestServer, args: string[] = [], name = uniqueNodeName()): Promise<TestNodeAgent> {
  const rootDir = tempDir("kite-agent-");
  const { NODE_ENV: _, TEST: __, ...env } = process.env;
  const proc = Bun.spawn([...KITE, "node-agent", `--kubeconfig=${s.kubeconfig}`, `--hostname-override=${name}`, `--root-dir=${rootDir}`, "--node-ip=127.0.0.1", ...args], {
    stdin: "ignore", stdout: "pipe", stderr: "pipe", env,
  });
  track(proc);
  let out = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  await until(async () => {
    if (proc.exitCode !== null) throw new Error(`kite node-agent exited ${proc.exitCode}: ${out}`);
    return (await s.call("GET", `/api/v1/nodes/${name}`)).status === 200 || undefined;
  }, "the node to register", 20_000).catch((e) => {
    throw new Error(`${(e as Error).message}; it said: ${out}`);
  });
  return {
    proc, name, rootDir,
    output: () => out,
    async stop(signal: NodeJS.Signals | number = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
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
