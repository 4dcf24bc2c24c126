// A kite component process (scheduler, node agent) for tests: spawned, tracked, its output collected,
// and awaited until `ready` says so (or it exits, which fails with what it printed).
import type { Subprocess } from "bun";
import { track } from "./processes.ts";
import { KITE } from "./server.ts";

export interface TestComponent {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** What it has printed so far, stdout and stderr interleaved. */
  output(): string;
  stop(signal?: NodeJS.Signals | number): Promise<number>;
}

/** Polls `f` until it returns a value other than undefined, failing after `ms` with what it waited for. */
export async function until<T>(f: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** Runs `kite ARGS` until `ready()` is true; `what` names the wait in a failure. */
export async function startComponent(args: string[], what: string, ready: () => Promise<boolean>, ms: number): Promise<TestComponent> {
  // consola logs only warnings under NODE_ENV=test (bun test's): the component logs as it would for a user
  const { NODE_ENV: _, TEST: __, ...env } = process.env;
  const proc = Bun.spawn([...KITE, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env });
  track(proc);
  let out = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  await until(async () => {
    if (proc.exitCode !== null) throw new Error(`kite ${args[0]} exited ${proc.exitCode}: ${out}`);
    return (await ready()) || undefined;
  }, what, ms).catch((e) => {
    throw new Error(`${(e as Error).message}; it said: ${out}`);
  });
  return {
    proc,
    output: () => out,
    async stop(signal: NodeJS.Signals | number = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}
