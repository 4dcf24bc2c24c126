// A command run "in" a container for an exec probe or hook: a process like the container's (its
// environment and working directory) in a process group of its own, stdout and stderr captured (at most
// 10 KiB each, as upstream), the whole group killed at the timeout or when the container's run ends.
import { constants } from "node:os";
import { DEFAULT_PATH } from "../runtime/process.ts";

/** upstream's maxReadLength for an exec probe's output. */
const MAX_OUTPUT = 10 * 1024;

export interface ExecTarget {
  env: Record<string, string>;
  workingDir: string;
  /** The argv prefix that enters the container's namespaces (working directory included), if it has its own. */
  enter?: () => string[] | undefined;
}

export type ExecResult =
  | { exitCode: number; stdout: string; stderr: string }
  | { timedOut: true }
  | { error: string };

async function readAtMost(stream: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size < max) chunks.push(chunk.subarray(0, max - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks);
}

const killGroup = (pid: number) => {
  try { process.kill(-pid, "SIGKILL"); } catch { /* gone */ }
};

/** Runs argv; timeoutMs 0 waits as long as it takes (or until `signal` aborts). */
export async function execIn(t: ExecTarget, argv: string[], timeoutMs: number, signal?: AbortSignal): Promise<ExecResult> {
  const [cmd, ...args] = argv;
  if (!cmd) return { error: "no command" };
  if (signal?.aborted) return { error: "the container stopped" };
  const exe = cmd.includes("/") ? cmd : Bun.which(cmd, { PATH: t.env.PATH ?? DEFAULT_PATH });
  if (!exe) return { error: `exec: "${cmd}": executable file not found in $PATH` };
  const enter = t.enter?.();
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    const full = enter ? [...enter, exe, ...args] : [exe, ...args];
    proc = Bun.spawn(full, { cwd: enter ? "/" : t.workingDir, env: t.env, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
  } catch (e) {
    return { error: (e as Error).message };
  }
  const pid = proc.pid;
  let timedOut = false;
  const onAbort = () => killGroup(pid);
  signal?.addEventListener("abort", onAbort, { once: true });
  const timer = timeoutMs > 0 ? setTimeout(() => { timedOut = true; killGroup(pid); }, timeoutMs) : undefined;
  // once the leader is gone, so is what it left running (it would hold the pipes open)
  const exited = proc.exited.then(() => killGroup(pid));
  const [out, err] = await Promise.all([readAtMost(proc.stdout, MAX_OUTPUT), readAtMost(proc.stderr, MAX_OUTPUT), exited]);
  clearTimeout(timer);
  signal?.removeEventListener("abort", onAbort);
  if (timedOut) return { timedOut: true };
  if (signal?.aborted) return { error: "the container stopped" };
  const exitCode = proc.exitCode ?? 128 + (proc.signalCode ? constants.signals[proc.signalCode as NodeJS.Signals] ?? 0 : 0);
  return { exitCode, stdout: out.toString(), stderr: err.toString() };
}
