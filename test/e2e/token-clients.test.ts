// Issue 14 item 7: stock kubectl with a static token (--token, --as), and the Python and JS clients with a
// bearer token from their kubeconfig, against a server that accepts only tokens (--anonymous-auth=false).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { kubectl, startServer, type TestServer } from "../helpers/server.ts";

const PYTHON = "/usr/bin/python3";

function tokenFile(): string {
  const f = join(tempDir("kite-tokclients-"), "tokens.csv");
  writeFileSync(f, 'tok-alice,alice,uid-alice,"dev,ops"\n');
  return f;
}

/** The server's kubeconfig with another bearer token. */
function kubeconfigWith(s: TestServer, token: string): string {
  const f = join(s.dataDir, `kubeconfig-${token}.yaml`);
  writeFileSync(f, readFileSync(s.kubeconfig, "utf8").replace("{token: test}", `{token: ${token}}`));
  return f;
}

async function run(cmd: string[], env?: Record<string, string>): Promise<any> {
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  try {
    return JSON.parse(out.trim().split("\n").pop() ?? "");
  } catch {
    throw new Error(`${cmd.join(" ")} exited ${code}: ${out}${err.slice(-2000)}`);
  }
}

const ALICE = { authenticated: true, user: { username: "alice", uid: "uid-alice", groups: ["dev", "ops", "system:authenticated"] }, audiences: ["https://kubernetes.default.svc.cluster.local"] };

describe("kubectl --token", () => {
  let allow: TestServer, deny: TestServer;
  beforeAll(async () => {
    const file = tokenFile();
    [allow, deny] = await Promise.all([
      startServer([`--token-auth-file=${file}`, "--anonymous-auth=false"]),
      startServer([`--token-auth-file=${file}`, "--authorization-mode=AlwaysDeny"]),
    ]);
  }, 30_000);
  afterAll(async () => { await Promise.all([allow?.stop(), deny?.stop()]); });

  test("a listed token is served; another is told to log in", async () => {
    const ok = await kubectl(allow, ["--token=tok-alice", "get", "namespace", "default", "-o", "name"]);
    expect({ code: ok.code, out: ok.out, err: ok.err }).toEqual({ code: 0, out: "namespace/default\n", err: "" });
    const no = await kubectl(allow, ["--token=tok-mallory", "get", "namespaces"]);
    expect(no.code).toBe(1);
    expect(no.err).toContain("error: You must be logged in to the server (Unauthorized)");
  });

  test("kubectl create of a TokenReview shows whose the token is", async () => {
    const r = await kubectl(allow, ["--token=tok-alice", "create", "-o", "json", "-f", "-"], JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "tok-alice" } }));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).status).toEqual(ALICE);
  });

  test("with AlwaysDeny, the refusal names the token's user; --as is refused as impersonation", async () => {
    // --raw: with everything denied, discovery is too
    const r = await kubectl(deny, ["--token=tok-alice", "get", "--raw", "/api/v1/namespaces/default/pods"]);
    expect(r.err.trim()).toBe(`Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`);
    const as = await kubectl(deny, ["--token=tok-alice", "--as=bob", "get", "--raw", "/api/v1/namespaces/default/pods"]);
    expect(as.err.trim()).toBe(`Error from server (Forbidden): users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`);
  });
});

describe("the official clients with a bearer token", () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer([`--token-auth-file=${tokenFile()}`, "--anonymous-auth=false"]); }, 30_000);
  afterAll(async () => { await s?.stop(); });

  test("the Python client", async () => {
    const probe = Bun.spawnSync([PYTHON, "-c", "import kubernetes"], { stdout: "pipe", stderr: "pipe" });
    if (probe.exitCode !== 0) throw new Error(`the Python Kubernetes client is required for this test; install it with: apt-get install python3-kubernetes`);
    const script = join(import.meta.dir, "clients", "bearer_token.py");
    const ok = await run([PYTHON, script, kubeconfigWith(s, "tok-alice"), "tok-alice"]);
    expect(ok.namespaces).toContain("default");
    expect(ok.review).toMatchObject(ALICE);
    expect(await run([PYTHON, script, kubeconfigWith(s, "tok-mallory"), "tok-alice"])).toEqual({ error: "Unauthorized", status: 401 });
  }, 60_000);

  test("the JS client", async () => {
    const script = join(import.meta.dir, "clients", "bearer-token.ts");
    const env = { NODE_EXTRA_CA_CERTS: join(s.dataDir, "pki", "ca.crt") };
    const ok = await run([process.execPath, script, kubeconfigWith(s, "tok-alice"), "tok-alice"], env);
    expect(ok.namespaces).toContain("default");
    expect(ok.review).toEqual(ALICE);
    const no = await run([process.execPath, script, kubeconfigWith(s, "tok-mallory"), "tok-alice"], env);
    expect(no.status).toBe(401);
  }, 60_000);
});
