// kite version: the client's version, and the server's from the kubeconfig's server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => { s = await startServer(); });
afterAll(() => s.stop());

const run = (args: string[]) => {
  const r = Bun.spawnSync([...KITE, "version", ...args]);
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
};

test("prints the client and the server version", () => {
  const r = run([`--kubeconfig=${s.kubeconfig}`]);
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/^Client Version: kite \d+\.\d+\.\d+/m);
  expect(r.out).toMatch(/^Server Version: v1\.21\.\d+\+kite/m);
});

test("--client needs no server; an unreachable server is named with the kubeconfig", async () => {
  expect(run(["--client"]).code).toBe(0);
  const r = run(["--server=https://127.0.0.1:1", "--insecure-skip-tls-verify"]);
  expect(r.code).toBe(1);
  expect(r.err).toContain("127.0.0.1:1");
});
