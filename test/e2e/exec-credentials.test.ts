// Issue 14 item 6: kubeconfig `exec` credential plugins (client.authentication.k8s.io v1 and v1beta1) for
// `kite get` and the client library every Kite component uses. The plugin is a real script written here:
// it records what it was given (KUBERNETES_EXEC_INFO, its args, its env) and prints an ExecCredential with a
// token the server knows; the server refuses anonymous requests, so a success means the token was sent.
// Stock kubectl reads the same kubeconfigs, which keeps them honest.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "../../pkg/client/client.ts";
import { loadClientConfig } from "../../pkg/client/kubeconfig.ts";
import { RESOURCES } from "../../pkg/client/resources.ts";
import { Transport } from "../../pkg/client/transport.ts";
import { runKite } from "../helpers/kite.ts";
import { tempDir } from "../helpers/processes.ts";
import { TEST_TOKEN, startServer, type TestServer } from "../helpers/server.ts";

const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33";
const dir = tempDir("kite-exec-cred-");
const plugin = join(dir, "credential-plugin.sh");
writeFileSync(plugin, `#!/bin/sh
printf '%s' "$KUBERNETES_EXEC_INFO" > "$RECORD.info"
printf '%s' "$*" > "$RECORD.args"
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s"}}' "$ANSWER_VERSION" "$ANSWER_TOKEN"
`);
chmodSync(plugin, 0o755);

let s: TestServer;
let n = 0;

/** A kubeconfig whose user runs the plugin (by a path relative to the kubeconfig) asking for `version`. */
function kubeconfig(version: string, answer: { version?: string; token?: string } = {}, clusterInfo = false) {
  const record = join(dir, `call-${n++}`);
  const file = `${record}.kubeconfig`;
  const env = [["RECORD", record], ["ANSWER_VERSION", answer.version ?? version], ["ANSWER_TOKEN", answer.token ?? "exec-token"]];
  writeFileSync(file, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${s.url}", certificate-authority-data: ${Buffer.from(s.ca).toString("base64")}}}]
users:
- name: u
  user:
    exec:
      apiVersion: ${version}
      command: ./credential-plugin.sh
      args: [--for, kite]
      env: [${env.map(([name, value]) => `{name: ${name}, value: "${value}"}`).join(", ")}]
      interactiveMode: Never
      provideClusterInfo: ${clusterInfo}
contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]
current-context: c
`);
  return { file, info: () => JSON.parse(readFileSync(`${record}.info`, "utf8")), args: () => readFileSync(`${record}.args`, "utf8") };
}

beforeAll(async () => {
  const tokens = join(dir, "tokens.csv");
  writeFileSync(tokens, `${TEST_TOKEN},kite-test,kite-test,system:masters\nexec-token,exec-user,exec-uid\n`);
  s = await startServer([`--token-auth-file=${tokens}`, "--anonymous-auth=false"]);
  const r = await s.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "from-exec" }, data: { k: "v" } }, { Authorization: `Bearer ${TEST_TOKEN}` });
  expect(r.status).toBe(201);
}, 60_000);
afterAll(async () => { await s?.stop(); }, 30_000);

for (const version of ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"]) {
  describe(`an exec plugin of ${version}`, () => {
    test("kite get authenticates with the plugin's token; the plugin got its args and ExecCredential", async () => {
      const k = kubeconfig(version);
      const r = await runKite(["get", "configmap", "from-exec", `--kubeconfig=${k.file}`, "-o", "jsonpath={.data.k}"]);
      expect({ code: r.code, out: r.out, err: r.err }).toEqual({ code: 0, out: "v", err: "" });
      expect(k.args()).toBe("--for kite");
      expect(k.info()).toEqual({ apiVersion: version, kind: "ExecCredential", spec: { interactive: false } });
    });

    test("the client library: a Client from loadClientConfig lists with it; provideClusterInfo passes the cluster", async () => {
      const k = kubeconfig(version, {}, true);
      const client = new Client(new Transport(await loadClientConfig({ kubeconfig: k.file }, {})));
      const list = await client.list(RESOURCES.configmaps, { namespace: "default" });
      expect(list.items.map((o: any) => o.metadata.name)).toContain("from-exec");
      expect(k.info().spec.cluster).toEqual({ server: s.url, "certificate-authority-data": Buffer.from(s.ca).toString("base64") });
    });

    test("stock kubectl reads the same kubeconfig alike", async () => {
      const k = kubeconfig(version);
      const p = Bun.spawnSync([KUBECTL, `--kubeconfig=${k.file}`, "get", "configmap", "from-exec", "-o", "jsonpath={.data.k}"]);
      expect({ code: p.exitCode, out: p.stdout.toString() }).toEqual({ code: 0, out: "v" });
    });
  });
}

describe("what the plugin answers is checked", () => {
  test("a token the server does not know is 401: kite get says Unauthorized", async () => {
    const r = await runKite(["get", "configmaps", `--kubeconfig=${kubeconfig("client.authentication.k8s.io/v1", { token: "wrong" }).file}`]);
    expect({ code: r.code, err: r.err.trim() }).toEqual({ code: 1, err: "error: You must be logged in to the server (Unauthorized)" });
  });

  test("an answer of another apiVersion than asked is refused, as client-go refuses it", async () => {
    const k = kubeconfig("client.authentication.k8s.io/v1", { version: "client.authentication.k8s.io/v1beta1" });
    const r = await runKite(["get", "configmaps", `--kubeconfig=${k.file}`]);
    expect({ code: r.code, err: r.err.trim() }).toEqual({ code: 1, err: "error: getting credentials: exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version client.authentication.k8s.io/v1beta1" });
  });
});

// A long-running client (an informer, a controller) outlives its credential: the plugin runs again when the
// ExecCredential's expirationTimestamp has passed, or when the server refuses the token with 401.
describe("a long-running client runs the plugin again", () => {
  const counting = join(dir, "counting-plugin.sh");
  writeFileSync(counting, `#!/bin/sh
n=$(( $(cat "$COUNT" 2>/dev/null || echo 0) + 1 )); echo $n > "$COUNT"
if [ -n "$STALE_FIRST" ] && [ $n = 1 ]; then token=stale; else token=exec-token; fi
expires=""; if [ -n "$TTL" ]; then expires=",\\"expirationTimestamp\\":\\"$(date -u -d "+$TTL seconds" +%Y-%m-%dT%H:%M:%SZ)\\""; fi
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"%s}}' "$token" "$expires"
`);
  chmodSync(counting, 0o755);

  async function client(env: Record<string, string>) {
    const count = join(dir, `count-${n++}`);
    const file = `${count}.kubeconfig`;
    writeFileSync(file, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${s.url}", certificate-authority-data: ${Buffer.from(s.ca).toString("base64")}}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ${counting}, interactiveMode: Never, env: [${Object.entries({ COUNT: count, ...env }).map(([k, v]) => `{name: ${k}, value: "${v}"}`).join(", ")}]}}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`);
    const c = new Client(new Transport(await loadClientConfig({ kubeconfig: file }, {})));
    return { get: async () => (await c.get(RESOURCES.configmaps, "from-exec", { namespace: "default" })).data.k, runs: () => Number(readFileSync(count, "utf8")) };
  }

  test("past the credential's expirationTimestamp", async () => {
    const c = await client({ TTL: "1" });
    expect([await c.get(), c.runs()]).toEqual(["v", 1]);
    expect([await c.get(), c.runs()]).toEqual(["v", 1]);
    await Bun.sleep(2100); // the timestamp has whole seconds: 1 to 2 s from the first run
    expect([await c.get(), c.runs()]).toEqual(["v", 2]);
    expect([await c.get(), c.runs()]).toEqual(["v", 2]);
  });

  test("when the server answers 401, once: the request is retried with the new token", async () => {
    const c = await client({ STALE_FIRST: "1" });
    expect([await c.get(), c.runs()]).toEqual(["v", 2]);
    expect([await c.get(), c.runs()]).toEqual(["v", 2]);
  });
});
