// Issue 14: client certificates (--client-ca-file) and the front proxy (--requestheader-*), read by the
// TLS front. Under AlwaysDeny the 403 names the user the server saw; under AlwaysAllow stock kubectl, the
// Python and JS clients, a watch and a large streamed list go through the front with a client certificate.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, kubectlWith, startServer, type TestServer } from "../helpers/server.ts";
import { runKite } from "../helpers/kite.ts";
import { tempDir } from "../helpers/processes.ts";
import { type Issued, clientKubeconfig, issueClient, makeCA } from "../helpers/certs.ts";
import { createBig } from "../helpers/large-list.ts";
import { expectStatus, type Reply } from "./fixtures.ts";

const clientCA = makeCA("client-ca");
const proxyCA = makeCA("front-proxy-ca");
const foreignCA = makeCA("foreign-ca");
const DAY = 24 * 3600_000;
const alice = issueClient(clientCA, "alice", { orgs: ["devs", "ops"] });
const expired = issueClient(clientCA, "old-alice", { notBefore: new Date(Date.now() - 10 * DAY), notAfter: new Date(Date.now() - DAY) });
const notYet = issueClient(clientCA, "future-alice", { notBefore: new Date(Date.now() + DAY), notAfter: new Date(Date.now() + 10 * DAY) });
const stranger = issueClient(foreignCA, "mallory");
const proxy = issueClient(proxyCA, "front-proxy");
const otherProxy = issueClient(proxyCA, "not-the-proxy");

const flags = [
  `--client-ca-file=${clientCA.certFile}`,
  `--requestheader-client-ca-file=${proxyCA.certFile}`,
  "--requestheader-allowed-names=front-proxy",
  "--requestheader-username-headers=X-Remote-User",
  "--requestheader-group-headers=X-Remote-Group",
  "--requestheader-extra-headers-prefix=X-Remote-Extra-",
];

/** A request through the front presenting `cert` (none when undefined). */
async function call(s: TestServer, path: string, cert?: Issued, init: RequestInit = {}): Promise<Reply> {
  const tls = { ca: s.ca, ...(cert ? { cert: cert.cert, key: cert.key } : {}) };
  const r = await fetch(`${s.url}${path}`, { ...init, tls } as RequestInit);
  const text = await r.text();
  let body: any = text;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, body, headers: r.headers };
}

const PODS = "/api/v1/namespaces/default/pods";
const deniedTo = (user: string) => `pods is forbidden: User "${user}" cannot list resource "pods" in API group "" in the namespace "default"`;

describe("client certificates and front-proxy headers (AlwaysDeny: the 403 names the user)", () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer([...flags, "--authorization-mode=AlwaysDeny"]); }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("a certificate signed by --client-ca-file authenticates as its CommonName", async () => {
    expect(expectStatus(await call(s, PODS, alice), 403, "Forbidden", "alice").message).toBe(deniedTo("alice"));
  });

  test("an expired, a not-yet-valid and a foreign certificate are 401, not anonymous", async () => {
    for (const [what, cert] of [["expired", expired], ["not yet valid", notYet], ["foreign CA", stranger]] as const) {
      expect(expectStatus(await call(s, PODS, cert), 401, "Unauthorized", what).message).toBe("Unauthorized");
    }
  });

  test("no certificate is anonymous", async () => {
    expect(expectStatus(await call(s, PODS), 403, "Forbidden", "anonymous").message).toBe(deniedTo("system:anonymous"));
  });

  test("the allowed front proxy's X-Remote-User names the user", async () => {
    const r = await call(s, PODS, proxy, { headers: { "X-Remote-User": "carol", "X-Remote-Group": "team-a", "X-Remote-Extra-Scopes": "read" } });
    expect(expectStatus(r, 403, "Forbidden", "proxied").message).toBe(deniedTo("carol"));
  });

  test("forged headers are not believed: a client-CA user stays itself, no certificate stays anonymous", async () => {
    const forged = { "X-Remote-User": "system:admin", "X-Remote-Group": "system:masters" };
    expect(expectStatus(await call(s, PODS, alice, { headers: forged }), 403, "Forbidden", "alice forging").message).toBe(deniedTo("alice"));
    expect(expectStatus(await call(s, PODS, undefined, { headers: forged }), 403, "Forbidden", "anonymous forging").message).toBe(deniedTo("system:anonymous"));
  });

  test("a front-proxy CA certificate whose CN is not allowed is 401, headers or not", async () => {
    expect(expectStatus(await call(s, PODS, otherProxy, { headers: { "X-Remote-User": "carol" } }), 401, "Unauthorized", "other proxy").message).toBe("Unauthorized");
    // The allowed proxy without a user header names no one, and its certificate is no client-CA user.
    expect((await call(s, PODS, proxy)).status).toBe(401);
  });

  test("stock kubectl with --client-certificate/--client-key is the certificate's user", async () => {
    const p = Bun.spawn(["kubectl", `--server=${s.url}`, `--certificate-authority=${join(s.dataDir, "pki", "ca.crt")}`,
      `--client-certificate=${alice.certFile}`, `--client-key=${alice.keyFile}`, "get", "--raw", PODS], { stdout: "pipe", stderr: "pipe" });
    const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
    expect(code).toBe(1);
    expect(err).toContain(`User "alice" cannot list resource "pods"`);
  });

  test("connections to the loopback HTTP server that the front did not open are refused", async () => {
    const pids = Bun.spawnSync(["ss", "-Hltnp"]).stdout.toString().split("\n").filter((l) => l.includes(`pid=${s.proc.pid},`));
    const inner = pids.map((l) => /127\.0\.0\.1:(\d+)/.exec(l)?.[1]).find((p) => p && Number(p) !== s.port);
    expect(inner).toBeDefined();
    const r = await fetch(`http://127.0.0.1:${inner}/api/v1/namespaces`, { headers: { "X-Remote-User": "carol" } });
    expect(r.status).toBe(403);
  });
});

describe("clients through the front (AlwaysAllow)", () => {
  let s: TestServer;
  let kubeconfig: string;
  beforeAll(async () => {
    s = await startServer(flags);
    kubeconfig = clientKubeconfig(s.url, s.ca, alice);
  }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("stock kubectl creates and reads with a client certificate kubeconfig", async () => {
    const run = (args: string[]) => kubectlWith(kubeconfig, args);
    const c = await run(["create", "configmap", "from-kubectl", "--from-literal=k=v"]);
    expect(c.err).toBe("");
    expect(c.code).toBe(0);
    const g = await run(["get", "configmap", "from-kubectl", "-o", "jsonpath={.data.k}"]);
    expect(g.out).toBe("v");
  });

  test("the Python client lists with the certificate", async () => {
    const script = `import sys, json
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
v1.create_namespaced_config_map("default", {"metadata": {"name": "from-python"}, "data": {"k": "py"}})
print(json.dumps([c.metadata.name for c in v1.list_namespaced_config_map("default").items]))`;
    const p = Bun.spawn(["/usr/bin/python3", "-c", script, kubeconfig], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(out)).toContain("from-python");
  });

  test("the JS client lists with the certificate", async () => {
    const script = `import * as k8s from "@kubernetes/client-node";
const kc = new k8s.KubeConfig(); kc.loadFromFile(process.argv.at(-1));
const api = kc.makeApiClient(k8s.CoreV1Api);
await api.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "from-js" }, data: { k: "js" } } });
console.log(JSON.stringify((await api.listNamespacedConfigMap({ namespace: "default" })).items.map((c) => c.metadata?.name)));`;
    const p = Bun.spawn([process.execPath, "-e", script, kubeconfig], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, NODE_EXTRA_CA_CERTS: join(s.dataDir, "pki", "ca.crt") } });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(out)).toContain("from-js");
  });

  test("kube-system/extension-apiserver-authentication publishes the CAs and the front proxy's headers", async () => {
    const r = await call(s, "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication", alice);
    expect(r.status).toBe(200);
    const pem = (x: string) => x.trim().replaceAll("\r", "");
    expect(pem(r.body.data["client-ca-file"])).toBe(pem(clientCA.cert));
    expect(pem(r.body.data["requestheader-client-ca-file"])).toBe(pem(proxyCA.cert));
    expect(r.body.data).toMatchObject({
      "requestheader-username-headers": `["X-Remote-User"]`, "requestheader-group-headers": `["X-Remote-Group"]`,
      "requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`, "requestheader-allowed-names": `["front-proxy"]`,
    });
  });

  test("a watch streams events through the front", async () => {
    const ac = new AbortController();
    const r = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name=watched`,
      { tls: { ca: s.ca, cert: alice.cert, key: alice.key }, signal: ac.signal } as RequestInit);
    expect(r.status).toBe(200);
    const reader = r.body!.getReader();
    await call(s, "/api/v1/namespaces/default/configmaps", alice, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ metadata: { name: "watched" } }) });
    let text = "";
    // the stream may open with a bare newline (headers flushed): the first event is the first non-empty line
    while (!text.trimStart().includes("\n")) text += new TextDecoder().decode((await reader.read()).value);
    const ev = JSON.parse(text.trimStart().split("\n")[0]);
    expect([ev.type, ev.object.metadata.name]).toEqual(["ADDED", "watched"]);
    ac.abort();
  });

  test("a large list streams through the front, plain and gzipped", async () => {
    await call(s, "/api/v1/namespaces", alice, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ metadata: { name: "big" } }) });
    await createBig(s, "big", 24, 128);
    for (const enc of ["identity", "gzip"]) {
      const r = await fetch(`${s.url}/api/v1/namespaces/big/configmaps?labelSelector=app%3Dbig`, { headers: { "Accept-Encoding": enc }, tls: { ca: s.ca, cert: alice.cert, key: alice.key } } as RequestInit);
      expect(r.status).toBe(200);
      if (enc === "gzip") expect(r.headers.get("content-encoding")).toBe("gzip");
      const text = await r.text();
      expect(text.length).toBeGreaterThan(3 * 1024 * 1024);
      expect(JSON.parse(text).items.length).toBe(24);
    }
  }, 60_000);
});

describe("start-up and shutdown with the front", () => {
  test("a port in use is exit 2, a CA file that is missing or holds no certificate exit 1, one line each", async () => {
    const s = await startServer(flags);
    try {
      const start = (port: number, ca: string) => runKite(["apiserver", "--bind-address=127.0.0.1", `--secure-port=${port}`, `--data-dir=${tempDir("kite-x509-")}`, `--client-ca-file=${ca}`]);
      const busy = await start(s.port, clientCA.certFile);
      expect({ code: busy.code, err: busy.err }).toEqual({ code: 2, err: `Error: port ${s.port} is in use\n` });
      // the files are read before the port is taken: the busy port does not matter to these
      const missing = await start(s.port, "/nonexistent/ca.crt");
      expect({ code: missing.code, err: missing.err }).toEqual({ code: 1, err: "Error: authentication and authorization: open /nonexistent/ca.crt: no such file or directory\n" });
      const empty = await start(s.port, alice.keyFile);
      expect({ code: empty.code, err: empty.err }).toEqual({ code: 1, err: `Error: authentication and authorization: ${alice.keyFile}: no certificates found\n` });
    } finally {
      await s.stop();
    }
  }, 60_000);

  test("SIGTERM ends a watch through the front with its last chunk, and the server exits 0", async () => {
    const s = await startServer(flags);
    const r = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1`, { tls: { ca: s.ca, cert: alice.cert, key: alice.key } } as RequestInit);
    expect(r.status).toBe(200);
    const body = r.text();
    expect(await s.stop("SIGTERM")).toBe(0);
    expect(await body).toBeString(); // a cut stream would reject
  }, 60_000);
});
