// `kite scheduler` before it can schedule: a kubeconfig that does not exist stops it with one line; an API
// server it cannot reach keeps it running but not ready, retrying with backoff rather than at once, and
// SIGTERM still stops it cleanly.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { runKite } from "../helpers/kite.ts";
import { tempDir, track } from "../helpers/processes.ts";
import { until } from "../helpers/scheduler.ts";
import { freePort, KITE } from "../helpers/server.ts";

test("a kubeconfig that does not exist: exit 1 with one line, no stack trace", async () => {
  const missing = join(tempDir("kite-sched-startup-"), "missing.yaml");
  const r = await runKite(["scheduler", `--kubeconfig=${missing}`, "--secure-port=0", "--port=0"]);
  expect(r.code).toBe(1);
  const lines = r.err.split("\n").filter((l) => l && !l.startsWith("Warning: "));
  expect(lines).toEqual([`Error: stat ${missing}: no such file or directory`]);
  expect(r.out).toBe("");
});

test("an unreachable API server: running, not ready, retrying with backoff; SIGTERM exits 0", async () => {
  const [api, port] = [await freePort(), await freePort()];
  const p = Bun.spawn([...KITE, "scheduler", `--master=http://127.0.0.1:${api}`, "--secure-port=0", "--address=127.0.0.1", `--port=${port}`], { stdout: "pipe", stderr: "pipe" });
  track(p);
  const readyz = await until(() => fetch(`http://127.0.0.1:${port}/readyz?verbose`).then(async (r) => ({ status: r.status, text: await r.text() }), () => undefined), "the insecure port");
  expect(readyz.status).toBe(500);
  expect(readyz.text).toContain("[-]sched-handler-sync failed: reason withheld");
  await Bun.sleep(1500);
  p.kill("SIGTERM");
  expect(await p.exited).toBe(0);
  // one failed list of each informer at once, one more after 800–1,600 ms at most: not a busy loop
  const failures = (await new Response(p.stderr).text()).split("\n").filter((l) => l.includes("list and watch failed"));
  expect(failures.length).toBeGreaterThan(0);
  expect(failures.filter((l) => l.startsWith("nodes: ")).length).toBeLessThanOrEqual(2);
});
