// Running kite commands that start servers: to their end (a start that should be refused), or `kite up`
// until its banner.
import type { Subprocess } from "bun";
import { KITE, freePort } from "./server.ts";
import { track } from "./processes.ts";

/** Runs a kite command to its end, killing it after `ms` (a server that should have refused to start). */
export async function runKite(args: string[], ms = 15_000) {
  const p = Bun.spawn([...KITE, ...args], { stdout: "pipe", stderr: "pipe" });
  track(p);
  const timer = setTimeout(() => p.kill(9), ms);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  return { code, out, err, timedOut: p.signalCode === "SIGKILL" };
}

/**
 * `kite up` until it prints its banner; the caller stops it. Pods on the host's network with the loopback node address, no proxy, unless
 * `args` say otherwise: a test makes bridges and rules only inside a network namespace of its own
 * (helpers/netns.ts).
 */
export async function kiteUp(dir: string, port?: number, args: string[] = ["--pod-network=host", "--proxy-mode=none", "--node-ip=127.0.0.1"]): Promise<Subprocess<"ignore", "pipe", "pipe">> {
  const p = Bun.spawn([...KITE, "up", `--data-dir=${dir}`, `--secure-port=${port ?? await freePort()}`, ...args], { stdout: "pipe", stderr: "pipe" });
  track(p);
  const reader = p.stdout.getReader();
  let out = "";
  while (!out.includes("Ctrl-C")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`kite up exited ${await p.exited}: ${await new Response(p.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return p;
}

/**
 * Reads what a running `kite up` prints (so a full pipe never stops the cluster) and keeps it for a failure's
 * reader; `stop` ends it with Ctrl-C and, with KITE_TEST_SHOW_LOG set, prints the log.
 */
export function keptLog(up: Subprocess<"ignore", "pipe", "pipe">): { stop(): Promise<void> } {
  let log = "";
  for (const stream of [up.stdout, up.stderr]) void (async () => { for await (const chunk of stream) log += new TextDecoder().decode(chunk); })();
  return {
    async stop() {
      up.kill("SIGINT");
      await up.exited;
      if (process.env.KITE_TEST_SHOW_LOG) console.error(`kite up's log:\n${log}`);
    },
  };
}
