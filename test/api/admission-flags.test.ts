// kite apiserver's admission flags: plugins turned on and off, the toleration seconds, the configuration
// file, and the one-line refusals (exit 2) of unknown names.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { KITE, type TestServer } from "../helpers/server.ts";
import { expectCode, useServer } from "./fixtures.ts";

const NS = "admission-flags";
const dir = tempDir("kite-admission-flags-");
const config = join(dir, "admission.yaml");
writeFileSync(join(dir, "quota.yaml"), "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources: []\n");
writeFileSync(config, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ResourceQuota
  path: quota.yaml
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
`);

// this file's own tokens: the admin's, and a node's for NodeRestriction
const tokens = join(dir, "tokens.csv");
writeFileSync(tokens, "test,kite-test,kite-test,system:masters\nnode-token,system:node:n1,n1,system:nodes\n");

let s: TestServer;
useServer(NS, (started) => (s = started), [
  `--token-auth-file=${tokens}`,
  // the order given does not count: plugins run in upstream's order
  "--enable-admission-plugins=NodeRestriction,AlwaysPullImages",
  "--disable-admission-plugins=ServiceAccount",
  "--default-not-ready-toleration-seconds=60",
  `--admission-control-config-file=${config}`,
]);

test("enabled, disabled and default plugins; the toleration seconds flag", async () => {
  const r = await s.call("POST", `/api/v1/namespaces/${NS}/pods`, { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } });
  expectCode(r, 201, "create a pod");
  // AlwaysPullImages on; ServiceAccount off (no account, no token volume); DefaultTolerationSeconds with the flag's value
  expect(r.body.spec.containers[0].imagePullPolicy).toBe("Always");
  expect(r.body.spec.serviceAccountName).toBeUndefined();
  expect(r.body.spec.volumes).toBeUndefined();
  expect(r.body.spec.tolerations.map((t: any) => [t.key, t.tolerationSeconds])).toEqual([["node.kubernetes.io/not-ready", 60], ["node.kubernetes.io/unreachable", 300]]);
});

test("NodeRestriction (enabled): a node creates only mirror pods bound to itself", async () => {
  const asNode = { Authorization: "Bearer node-token" };
  const pod = (annotations: Record<string, string>) => ({ metadata: { name: "by-node", annotations }, spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox" }] } });
  const plain = await s.call("POST", `/api/v1/namespaces/${NS}/pods`, pod({}), asNode);
  expectCode(plain, 403, "a node's plain pod");
  expect(plain.body.message).toBe(`pods "by-node" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods`);
  expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/pods`, pod({ "kubernetes.io/config.mirror": "x" }), asNode), 201, "a node's mirror pod");
});

/** Runs `kite apiserver` with flags that must be refused before it starts. */
async function refused(...flags: string[]) {
  const p = Bun.spawn([...KITE, "apiserver", `--data-dir=${join(dir, "never")}`, ...flags], { stdout: "pipe", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  return { code, lines: err.split("\n").filter(Boolean) };
}

describe("refused flags exit 2 with one line", () => {
  test("unknown plugin names, in upstream's words", async () => {
    expect(await refused("--enable-admission-plugins=NamespaceLifecycle,Foo")).toEqual({ code: 2, lines: [`Error: enable-admission-plugins plugin "Foo" is unknown`] });
    expect(await refused("--disable-admission-plugins=Bar")).toEqual({ code: 2, lines: [`Error: disable-admission-plugins plugin "Bar" is unknown`] });
  });

  test("the deprecated --admission-control with the new flags", async () => {
    const r = await refused("--admission-control=NamespaceLifecycle", "--enable-admission-plugins=Priority");
    expect(r.code).toBe(2);
    expect(r.lines.at(-1)).toBe("Error: admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive");
  });

  test("a configuration file that cannot be read", async () => {
    const missing = join(dir, "missing.yaml");
    const r = await refused(`--admission-control-config-file=${missing}`);
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([`Error: failed to read plugin config: unable to read admission control configuration from "${missing}" [ENOENT: no such file or directory, open '${missing}']`]);
  });
});
