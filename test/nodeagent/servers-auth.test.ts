// The agent's servers: the main port (HTTPS with its generated certificate; anonymous and AlwaysAllow by
// default; or client certificates, bearer tokens reviewed by the API server and SubjectAccessReviews about
// nodes/proxy), the read-only port (plain HTTP, /pods and /healthz only), the healthz port; /pods and
// /containerLogs in the kubelet's words; and the API server's pods/log reaching an agent that checks it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateServingCerts } from "../../pkg/pki/certs.ts";
import { issueClient, makeCA } from "../helpers/certs.ts";
import { until } from "../helpers/component.ts";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { TEST_TOKEN, freePort, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, open: TestNodeAgent, locked: TestNodeAgent, readOnlyPort: number, healthzPort: number;
const ca = makeCA("agent-clients");
const apiserverClient = issueClient(ca, "kube-apiserver-kubelet-client", { orgs: ["system:masters"] });
const carol = issueClient(ca, "carol");
const stranger = issueClient(makeCA("someone-else"), "mallory", { orgs: ["system:masters"] });

/** A request as the test's admin (the server runs RBAC). */
async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const r = await s.call(method, path, body, { Authorization: `Bearer ${TEST_TOKEN}` });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

beforeAll(async () => {
  const dir = tempDir("kite-agent-auth-");
  // the locked agent serves a certificate of a CA the API server trusts (--kubelet-certificate-authority)
  const serving = generateServingCerts("agents-ca", "agent", ["127.0.0.1"]);
  const [servingCA, servingCert, servingKey] = ["ca.crt", "agent.crt", "agent.key"].map((f) => join(dir, f));
  writeFileSync(servingCA, serving.ca);
  writeFileSync(servingCert, serving.cert);
  writeFileSync(servingKey, serving.key);
  const tokens = join(dir, "tokens.csv");
  writeFileSync(tokens, "test,kite-test,kite-test,system:masters\nalice-token,alice,alice\nbob-token,bob,bob\n");
  s = await startServer([
    "--authorization-mode=RBAC", `--token-auth-file=${tokens}`, "--kubelet-preferred-address-types=InternalIP",
    `--kubelet-client-certificate=${apiserverClient.certFile}`, `--kubelet-client-key=${apiserverClient.keyFile}`, `--kubelet-certificate-authority=${servingCA}`,
  ]);
  await admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "node-proxy" }, rules: [{ apiGroups: [""], resources: ["nodes/proxy"], verbs: ["get"] }] });
  await admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: "bob-node-proxy" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "node-proxy" }, subjects: [{ kind: "User", name: "bob", apiGroup: "rbac.authorization.k8s.io" }] });
  [readOnlyPort, healthzPort] = [await freePort(), await freePort()];
  open = await startNodeAgent(s, [`--read-only-port=${readOnlyPort}`, `--healthz-port=${healthzPort}`, "--tls-min-version=VersionTLS12", "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"]);
  locked = await startNodeAgent(s, ["--anonymous-auth=false", "--authentication-token-webhook", "--authorization-mode=Webhook", `--client-ca-file=${ca.certFile}`,
    `--tls-cert-file=${servingCert}`, `--tls-private-key-file=${servingKey}`, "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"]);
  for (const [name, agent] of [["web", open], ["guarded", locked]] as const) {
    await admin("POST", "/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: agent.name, containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "echo hello; sleep 60"] }] } });
  }
  await until(async () => {
    const r = await admin("GET", "/api/v1/namespaces/default/pods");
    return r.items.every((p: any) => p.status?.phase === "Running") || undefined;
  }, "both pods running", 20_000);
});
afterAll(async () => {
  await open?.stop();
  await locked?.stop();
  await s?.stop();
});

type Who = { token?: string; cert?: { cert: string; key: string } };

async function get(agent: TestNodeAgent, path: string, who: Who = {}) {
  const headers: Record<string, string> = who.token ? { Authorization: `Bearer ${who.token}` } : {};
  const r = await fetch(`https://127.0.0.1:${agent.port}${path}`, { headers, tls: { rejectUnauthorized: false, ...who.cert } } as RequestInit);
  return { status: r.status, text: await r.text() };
}
const plain = async (port: number, path: string) => {
  const r = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: r.status, text: await r.text() };
};

/** The container's output through the agent, once the stamper has written it. */
const logsOf = (agent: TestNodeAgent, pod: string, who: Who = {}) =>
  until(async () => { const r = await get(agent, `/containerLogs/default/${pod}/c`, who); return r.text === "hello\n" ? r : undefined; }, `${pod}'s log`);

describe("defaults: anonymous, AlwaysAllow", () => {
  test("/healthz, /pods (a PodList with the status the agent reports), /containerLogs", async () => {
    expect(await get(open, "/healthz")).toEqual({ status: 200, text: "ok" });
    expect((await get(open, "/healthz/syncloop")).text).toBe("ok");
    const pods = JSON.parse((await get(open, "/pods")).text);
    expect(pods).toMatchObject({ kind: "PodList", apiVersion: "v1", metadata: {} });
    expect(pods.items.map((p: any) => [p.kind, p.metadata.name, p.status.phase])).toEqual([["Pod", "web", "Running"]]);
    expect((await logsOf(open, "web")).status).toBe(200);
  });

  test("/containerLogs refusals in the kubelet's words and codes", async () => {
    expect(await get(open, "/containerLogs/default/nope/c")).toEqual({ status: 404, text: `pod "nope" does not exist` });
    expect(await get(open, "/containerLogs/default/web/x")).toEqual({ status: 404, text: `container "x" not found in pod "web"` });
    expect(await get(open, "/containerLogs/default/web/c?tailLines=-1")).toEqual({ status: 422, text: `{"message": "Invalid request."}` });
    expect(await get(open, "/containerLogs/default/web/c?tailLines=x")).toEqual({ status: 400, text: `{"message": "Unable to decode query."}` });
    expect(await get(open, "/containerLogs/default/web/c?previous=true")).toEqual({ status: 400, text: `previous terminated container "c" in pod "web" not found` });
    expect((await get(open, "/containerLogs/default/web/c?tail=all")).text).toBe("hello\n");
    expect((await get(open, "/nothing")).status).toBe(404);
  });

  test("the serving certificate is generated into --root-dir/pki/kubelet.crt and names the node's IP", async () => {
    const pem = readFileSync(join(open.rootDir, "pki", "kubelet.crt"), "utf8");
    const r = await fetch(`https://127.0.0.1:${open.port}/healthz`, { tls: { ca: pem } } as RequestInit);
    expect(r.status).toBe(200);
  });

  test("--tls-min-version and --tls-cipher-suites: TLS 1.1 and other TLS 1.2 suites are refused (with and without client CAs)", async () => {
    const cipher = (port: number, args: string[]) => {
      const out = Bun.spawnSync(["openssl", "s_client", "-connect", `127.0.0.1:${port}`, ...args], { stdin: "ignore" }).stdout.toString();
      return /Cipher is (\S+)/.exec(out)?.[1];
    };
    for (const port of [open.port, locked.port]) {
      expect(cipher(port, ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"])).toBe("ECDHE-RSA-AES128-GCM-SHA256");
      expect(cipher(port, ["-tls1_2", "-cipher", "ECDHE-RSA-AES256-GCM-SHA384"])).toBe("(NONE)");
    }
    expect(cipher(open.port, ["-tls1_1"])).toBe("(NONE)");
  });

  test("the read-only port: plain HTTP, no authentication, /pods and /healthz but no logs; the healthz port: /healthz only", async () => {
    expect(JSON.parse((await plain(readOnlyPort, "/pods")).text).items[0].metadata.name).toBe("web");
    expect(await plain(readOnlyPort, "/healthz")).toEqual({ status: 200, text: "ok" });
    expect((await plain(readOnlyPort, "/containerLogs/default/web/c")).status).toBe(404);
    expect(await plain(healthzPort, "/healthz")).toEqual({ status: 200, text: "ok" });
    expect((await plain(healthzPort, "/pods")).status).toBe(404);
  });
});

describe("--anonymous-auth=false, --authentication-token-webhook, --authorization-mode=Webhook, --client-ca-file", () => {
  test("no credentials: 401; an unknown token: 401; a certificate of another CA: 401", async () => {
    expect(await get(locked, "/pods")).toEqual({ status: 401, text: "Unauthorized" });
    expect(await get(locked, "/healthz")).toEqual({ status: 401, text: "Unauthorized" });
    expect(await get(locked, "/pods", { token: "nobody" })).toEqual({ status: 401, text: "Unauthorized" });
    expect(await get(locked, "/pods", { cert: stranger })).toEqual({ status: 401, text: "Unauthorized" });
  });

  test("a token the API server knows, judged by a SubjectAccessReview about nodes/proxy: alice 403, bob (granted it) 200", async () => {
    expect(await get(locked, "/pods", { token: "alice-token" })).toEqual({ status: 403, text: "Forbidden (user=alice, verb=get, resource=nodes, subresource=proxy)" });
    expect(await get(locked, "/containerLogs/default/guarded/c", { token: "alice-token" })).toEqual({ status: 403, text: "Forbidden (user=alice, verb=get, resource=nodes, subresource=proxy)" });
    const r = await get(locked, "/pods", { token: "bob-token" });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).items[0].metadata.name).toBe("guarded");
    expect((await logsOf(locked, "guarded", { token: "bob-token" })).status).toBe(200);
  });

  test("a client certificate of --client-ca-file is its CommonName", async () => {
    expect(await get(locked, "/pods", { cert: carol })).toEqual({ status: 403, text: "Forbidden (user=carol, verb=get, resource=nodes, subresource=proxy)" });
  });

  test("the API server's pods/log reaches it with --kubelet-client-certificate, verifying its --tls-cert-file; pods/log is its own resource in RBAC", async () => {
    const r = await until(async () => { const x = await s.req("/api/v1/namespaces/default/pods/guarded/log", { headers: { Authorization: `Bearer ${TEST_TOKEN}` } }); const t = await x.text(); return t === "hello\n" ? x : undefined; }, "pods/log through the API server");
    expect(r.headers.get("content-type")).toBe("text/plain");
    const denied = await s.call("GET", "/api/v1/namespaces/default/pods/guarded/log", undefined, { Authorization: "Bearer bob-token" });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(`pods "guarded" is forbidden: User "bob" cannot get resource "pods/log" in API group "" in the namespace "default"`);
    // the open agent's self-signed certificate is not of --kubelet-certificate-authority
    const unverified = await s.call("GET", "/api/v1/namespaces/default/pods/web/log", undefined, { Authorization: `Bearer ${TEST_TOKEN}` });
    expect(unverified.status).toBe(500);
    expect(unverified.body.message).toStartWith(`Get "https://127.0.0.1:${open.port}/containerLogs/default/web/c": `);
    const skipped = await s.req("/api/v1/namespaces/default/pods/web/log?insecureSkipTLSVerifyBackend=true", { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
    expect(await skipped.text()).toBe("hello\n");
  });
});
