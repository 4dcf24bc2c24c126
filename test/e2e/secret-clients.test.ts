// Issue 13: a Secret written with stringData by the official Python client and by @kubernetes/client-node
// reads back with only base64 data (stringData merged in, its keys winning), after every kind of write.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { kubectl, startServer, type TestServer } from "../helpers/server.ts";
import { createNamespace } from "../api/fixtures.ts";

const PYTHON = "/usr/bin/python3";
const NS = "secret-clients";
const b64 = (v: string) => Buffer.from(v).toString("base64");

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await createNamespace(s, NS);
}, 30_000);
afterAll(async () => { await s?.stop(); });

/** Runs a client script; returns its one JSON line of steps, or fails with everything it printed. */
async function run(cmd: string[], env?: Record<string, string>): Promise<Record<string, { data: Record<string, string>; stringData?: unknown }>> {
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const line = out.trim().split("\n").pop() ?? "";
  let parsed: any;
  try { parsed = JSON.parse(line); } catch { /* reported below */ }
  if (code !== 0 || !parsed || parsed.error) throw new Error(`${cmd.join(" ")} exited ${code}: ${out}${err.slice(-2000)}`);
  return parsed;
}

/** Each step's answer has the expected data and no stringData. */
function expectSteps(steps: Record<string, { data: Record<string, string>; stringData?: unknown }>, want: Record<string, Record<string, string>>) {
  const got = Object.fromEntries(Object.keys(want).map((k) => [k, { data: steps[k]?.data, stringData: steps[k]?.stringData ?? null }]));
  expect(got).toEqual(Object.fromEntries(Object.entries(want).map(([k, v]) => [k, { data: Object.fromEntries(Object.entries(v).map(([dk, dv]) => [dk, b64(dv)])), stringData: null }])));
}

describe("Secret stringData through the official clients", () => {
  test("kubectl apply (client-side and server-side), twice: the Secret holds only data", async () => {
    const manifest = (name: string, password: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\n  namespace: ${NS}\nstringData:\n  DB_PASSWORD: ${password}\n`;
    for (const [name, extra] of [["from-kubectl", []], ["from-kubectl-ssa", ["--server-side"]]] as const) {
      for (const password of ["s3cret", "rotated"]) {
        const r = await kubectl(s, ["apply", ...extra, "-f", "-"], manifest(name, password));
        expect({ name, password, code: r.code, err: r.err }).toEqual({ name, password, code: 0, err: "" });
        const g = await kubectl(s, ["get", "secret", name, "-n", NS, "-o", "json"]);
        const got = JSON.parse(g.out);
        expect({ name, data: got.data, stringData: got.stringData }).toEqual({ name, data: { DB_PASSWORD: b64(password) }, stringData: undefined });
      }
    }
  }, 60_000);

  test("the Python client: create, read, replace, strategic and JSON patches, list", async () => {
    const probe = Bun.spawnSync([PYTHON, "-c", "import kubernetes"], { stdout: "pipe", stderr: "pipe" });
    if (probe.exitCode !== 0) {
      throw new Error(`the Python Kubernetes client is required for this test (${probe.stderr.toString().trim()}); install it with: apt-get install python3-kubernetes`);
    }
    const steps = await run([PYTHON, join(import.meta.dir, "clients", "secret.py"), s.kubeconfig, NS, "from-python"]);
    const created = { a: "1", b: "2" };
    expectSteps(steps, {
      create: created, read: created,
      replace: { ...created, c: "3" },
      patch: { ...created, c: "3", d: "4" },
      jsonpatch: { ...created, c: "3", d: "4", e: "5" },
      list: { ...created, c: "3", d: "4", e: "5" },
    });
  }, 60_000);

  test("the JS client: create, read, replace, merge patch, server-side apply, list", async () => {
    const steps = await run([process.execPath, join(import.meta.dir, "clients", "secret.ts"), s.kubeconfig, NS, "from-js"], {
      NODE_EXTRA_CA_CERTS: join(s.dataDir, "pki", "ca.crt"),
    });
    const created = { a: "1", b: "2" };
    expectSteps(steps, {
      create: created, read: created,
      replace: { ...created, c: "3" },
      patch: { ...created, c: "3", d: "4" },
      apply: { ...created, c: "3", d: "4", f: "6" },
      list: { ...created, c: "3", d: "4", f: "6" },
    });
  }, 60_000);
});
