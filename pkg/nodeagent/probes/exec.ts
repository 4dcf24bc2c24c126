// A command run "in" a container for an exec probe or hook: a process like the container's (its
// environment and working directory) in a process group of its own, stdout and stderr captured (at most
// 10 KiB each, as upstream), the whole group killed at the timeout or when the container's run ends.
// A container with namespaces of its own gets it from the runtime's probe helper (runtime/prober.ts);
// one without, as a process spawned here.
import { constants } from "node:os";
import { MAX_OUTPUT, type Prober, type ProberResult } from "../runtime/prober.ts";
import { DEFAULT_PATH } from "../runtime/process.ts";

export interface ExecTarget {
  env: Record<string, string>;
  workingDir: string;
  /** The argv prefix that enters the container's namespaces (working directory included), if it has its own. */
  enter?: () => string[] | undefined;
  /** The helper that runs commands in the container's namespaces and its process there, if it has its own. */
  inside?: () => { prober: Prober; pid: number } | undefined;
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

/** A command on its way: its process group's pid once known (to kill it), its result once it ended. */
type Launch = (onPid: (pid: number) => void) => Promise<ProberResult | { error: string }>;

/** Runs argv; timeoutMs 0 waits as long as it takes (or until `signal` aborts). */
export async function execIn(t: ExecTarget, argv: string[], timeoutMs: number, signal?: AbortSignal): Promise<ExecResult> {
  const [cmd, ...args] = argv;
  if (!cmd) return { error: "no command" };
  if (signal?.aborted) return { error: "the container stopped" };
  const exe = cmd.includes("/") ? cmd : Bun.which(cmd, { PATH: t.env.PATH ?? DEFAULT_PATH });
  if (!exe) return { error: `exec: "${cmd}": executable file not found in $PATH` };
  const inside = t.inside?.();
  const launch: Launch = inside
    ? (onPid) => inside.prober.run(inside.pid, t.workingDir, t.env, [exe, ...args], onPid).catch((e: Error) => ({ error: e.message }))
    : (onPid) => spawned(t, [exe, ...args], onPid);
  let pid: number | undefined, stopped = false, timedOut = false;
  const stop = () => { stopped = true; if (pid) killGroup(pid); };
  signal?.addEventListener("abort", stop, { once: true });
  const timer = timeoutMs > 0 ? setTimeout(() => { timedOut = true; stop(); }, timeoutMs) : undefined;
  const r = await launch((p) => { pid = p; if (stopped) killGroup(p); });
  clearTimeout(timer);
  signal?.removeEventListener("abort", stop);
  if (timedOut) return { timedOut: true };
  if (signal?.aborted) return { error: "the container stopped" };
  return r;
}

/** argv as a process of this one's (in the container's namespaces through t.enter where it has them). */
async function spawned(t: ExecTarget, argv: string[], onPid: (pid: number) => void): Promise<ProberResult | { error: string }> {
  const enter = t.enter?.();
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    proc = Bun.spawn(enter ? [...enter, ...argv] : argv, { cwd: enter ? "/" : t.workingDir, env: t.env, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
  } catch (e) {
    return { error: (e as Error).message };
  }
  const pid = proc.pid;
  onPid(pid);
  // once the leader is gone, so is what it left running (it would hold the pipes open)
  const exited = proc.exited.then(() => killGroup(pid));
  const [out, err] = await Promise.all([readAtMost(proc.stdout, MAX_OUTPUT), readAtMost(proc.stderr, MAX_OUTPUT), exited]);
  const exitCode = proc.exitCode ?? 128 + (proc.signalCode ? constants.signals[proc.signalCode as NodeJS.Signals] ?? 0 : 0);
  return { exitCode, stdout: out.toString(), stderr: err.toString() };
}
