// Tests in which the node agent gives pods networks of their own run, whole (API server, agent, test
// client), inside a network namespace they make first, so that no bridge, veth or namespace reaches the
// machine's own network: the test file runs itself again under `unshare --net --mount`, with loopback up
// and a private tmpfs on /run/netns (so the pods' namespaces go with the test's mount namespace even
// when a test fails before its cleanup).
import { expect, test } from "bun:test";
import { track } from "./processes.ts";
import { ROOT } from "./server.ts";

/** True in the run of the test file inside its own network namespace. */
export const IN_OWN_NETNS = process.env.KITE_TEST_OWN_NETNS === "1";

/** Why this machine cannot run such tests, or undefined when it can. */
export function ownNetnsSkipReason(): string | undefined {
  if (process.platform !== "linux") return `network namespaces need Linux, not ${process.platform}`;
  if (process.getuid?.() !== 0) return "not root: making network namespaces needs root";
  for (const tool of ["unshare", "nsenter", "ip"]) if (!Bun.which(tool)) return `"${tool}" is not in $PATH`;
  return undefined;
}

const SETUP = "mkdir -p /run/netns && mount -t tmpfs kite-test-netns /run/netns && ip link set lo up && exec \"$@\"";

/**
 * Runs the test file `file` with bun's runner inside a new network and mount namespace; resolves to its
 * exit code and output. Its lines are prefixed, so that a runner reading this process's output does not
 * count its tests twice.
 */
export async function runInOwnNetns(file: string, timeoutMs = 120_000): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn(["unshare", "--net", "--mount", "sh", "-c", SETUP, "sh", process.execPath, "test", "--timeout", String(timeoutMs), file], {
    cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, KITE_TEST_OWN_NETNS: "1" },
  });
  track(proc);
  const timer = setTimeout(() => proc.kill(9), timeoutMs + 10_000);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  const output = `${out}${err}`.split("\n").map((l) => `  [own netns] ${l}`).join("\n");
  return { code, output };
}

/**
 * A test file whose tests need a network namespace of their own: outside one, a single test re-runs the
 * file inside a new one (or is skipped, saying why: `why` adds a reason of the file's own); inside, `tests`
 * defines the file's tests.
 */
export function inOwnNetns(file: string, title: string, tests: () => void, o: { why?: string; timeoutMs?: number } = {}): void {
  if (IN_OWN_NETNS) return tests();
  const why = ownNetnsSkipReason() ?? o.why;
  const name = file.split("/").at(-1);
  if (why) console.warn(`${name} skipped: ${why}`);
  const timeoutMs = o.timeoutMs ?? 120_000;
  test.skipIf(why !== undefined)(`${title}, tested inside a network namespace of the test's own${why ? ` (skipped: ${why})` : ""}`, async () => {
    const r = await runInOwnNetns(file, timeoutMs);
    console.error(r.output);
    expect(r.code).toBe(0);
  }, timeoutMs + 30_000);
}
