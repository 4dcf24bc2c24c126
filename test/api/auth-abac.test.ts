// Issue 14: --authorization-mode=ABAC with --authorization-policy-file — upstream's line-by-line JSON
// policies (v1beta1 and the legacy unversioned form), matched as upstream matches them, seen by an
// anonymous caller (system:anonymous in system:unauthenticated); a bad file refuses the start in one line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";
import { runKite } from "../helpers/kite.ts";
import { expectStatus } from "./fixtures.ts";

const v1beta1 = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec });

const POLICY = [
  "# comments and blank lines are skipped",
  "",
  // namespaces may be created (a namespace of * also matches the cluster scope)
  v1beta1({ user: "system:anonymous", namespace: "*", resource: "namespaces", apiGroup: "" }),
  // everything in one namespace, every group
  v1beta1({ user: "system:anonymous", namespace: "team-a", resource: "*", apiGroup: "*" }),
  // configmaps everywhere, read only, by group
  v1beta1({ group: "system:unauthenticated", namespace: "*", resource: "configmaps", apiGroup: "", readonly: true }),
  // deployments (apps) only, in team-b
  v1beta1({ user: "system:anonymous", namespace: "team-b", resource: "deployments", apiGroup: "apps" }),
  // `*` means every authenticated user: not an anonymous one
  v1beta1({ user: "*", namespace: "*", resource: "secrets", apiGroup: "*" }),
  // non-resource paths: exact, and a trailing-* prefix, read only
  v1beta1({ user: "system:anonymous", nonResourcePath: "/version" }),
  v1beta1({ user: "system:anonymous", nonResourcePath: "/apis/*", readonly: true }),
  // the legacy unversioned form: what it leaves out matches everything, every group
  JSON.stringify({ user: "system:anonymous", namespace: "legacy", readonly: true }),
].join("\n");

describe("--authorization-mode=ABAC", () => {
  let s: TestServer;
  beforeAll(async () => {
    const dir = tempDir("kite-abac-");
    const file = join(dir, "policy.jsonl");
    writeFileSync(file, POLICY);
    s = await startServer(["--authorization-mode=ABAC", `--authorization-policy-file=${file}`]);
  }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("a namespace-wide policy allows every verb on every resource there, and nowhere else", async () => {
    for (const name of ["team-a", "team-b", "legacy"]) expect((await s.call("POST", "/api/v1/namespaces", { metadata: { name } })).status).toBe(201);
    expect((await s.call("POST", "/api/v1/namespaces/team-a/secrets", { metadata: { name: "s1" } })).status).toBe(201);
    expect((await s.call("PATCH", "/api/v1/namespaces/team-a/secrets/s1", { metadata: { labels: { a: "b" } } }, { "content-type": "application/merge-patch+json" })).status).toBe(200);
    expect((await s.call("GET", "/api/v1/namespaces/team-a/secrets")).status).toBe(200);
    expect((await s.call("DELETE", "/api/v1/namespaces/team-a/secrets/s1")).status).toBe(200);
    const nodes = await s.call("GET", "/api/v1/nodes");
    expect(expectStatus(nodes, 403, "Forbidden", "list nodes").message)
      .toBe(`nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope: No policy matched.`);
    const other = await s.call("POST", "/api/v1/namespaces/default/secrets", { metadata: { name: "s1" } });
    expect(expectStatus(other, 403, "Forbidden", "create secret in default").message)
      .toBe(`secrets is forbidden: User "system:anonymous" cannot create resource "secrets" in API group "" in the namespace "default": No policy matched.`);
  });

  test("readonly allows get, list and watch only", async () => {
    expect((await s.call("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
    expect((await s.call("GET", "/api/v1/configmaps")).status).toBe(200);
    expect((await s.call("GET", "/api/v1/namespaces/kube-system/configmaps/missing")).status).toBe(404);
    const w = await s.req("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1");
    expect(w.status).toBe(200);
    await w.text();
    const c = await s.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "c" } });
    expectStatus(c, 403, "Forbidden", "create configmap");
    const d = await s.call("DELETE", "/api/v1/namespaces/default/configmaps/c");
    expect(expectStatus(d, 403, "Forbidden", "delete configmap").message).toContain(`cannot delete resource "configmaps"`);
  });

  test("apiGroup and resource must both match", async () => {
    expect((await s.call("GET", "/apis/apps/v1/namespaces/team-b/deployments")).status).toBe(200);
    const wrongResource = await s.call("GET", "/apis/apps/v1/namespaces/team-b/statefulsets");
    expectStatus(wrongResource, 403, "Forbidden", "statefulsets in team-b");
    const wrongGroup = await s.call("GET", "/apis/batch/v1/namespaces/team-b/jobs");
    expectStatus(wrongGroup, 403, "Forbidden", "jobs in team-b");
  });

  test("a user of * is every authenticated user, so an anonymous one does not match", async () => {
    const r = await s.call("GET", "/api/v1/namespaces/default/secrets");
    expectStatus(r, 403, "Forbidden", "list secrets");
  });

  test("non-resource paths: exact, prefix, readonly", async () => {
    expect((await s.call("GET", "/version")).status).toBe(200);
    expect((await s.call("GET", "/apis/apps/v1")).status).toBe(200);
    const api = await s.call("GET", "/api");
    expect(expectStatus(api, 403, "Forbidden", "/api").message).toBe(`forbidden: User "system:anonymous" cannot get path "/api": No policy matched.`);
    const post = await s.call("POST", "/apis/x", {});
    expectStatus(post, 403, "Forbidden", "post /apis/x");
  });

  test("the legacy form: its namespace, every resource and group, read only", async () => {
    expect((await s.call("GET", "/apis/apps/v1/namespaces/legacy/deployments")).status).toBe(200);
    expect((await s.call("GET", "/api/v1/namespaces/legacy/secrets")).status).toBe(200);
    expectStatus(await s.call("POST", "/api/v1/namespaces/legacy/secrets", { metadata: { name: "x" } }), 403, "Forbidden", "write in legacy");
    // a legacy line with a namespace matches no non-resource path
    expectStatus(await s.call("GET", "/api"), 403, "Forbidden", "/api");
  });
});

describe("ABAC start-up checks", () => {
  const refusal = async (args: string[]) => {
    const dir = tempDir("kite-abac-bad-");
    const r = await runKite(["apiserver", "--bind-address=127.0.0.1", `--secure-port=${await freePort()}`, `--data-dir=${dir}`, ...args]);
    expect(r.timedOut).toBe(false);
    const lines = r.err.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    return { code: r.code, line: lines[0] };
  };

  test("a line that is not JSON names the file, the line and Go's reason", async () => {
    const file = join(tempDir("kite-abac-file-"), "policy.jsonl");
    writeFileSync(file, `${v1beta1({ user: "a", namespace: "*" })}\n{"user": "bob",\n`);
    const r = await refusal(["--authorization-mode=ABAC", `--authorization-policy-file=${file}`]);
    expect(r.code).toBe(1);
    expect(r.line).toBe(`Error: authentication and authorization: error reading policy file ${file}, line 2: {"user": "bob",: unexpected end of JSON input`);
  });

  test("a missing file, a mode without its file, a file without its mode", async () => {
    const missing = await refusal(["--authorization-mode=ABAC", "--authorization-policy-file=/nonexistent/policy"]);
    expect(missing.line).toBe("Error: authentication and authorization: open /nonexistent/policy: no such file or directory");
    const noFile = await refusal(["--authorization-mode=ABAC"]);
    expect(noFile).toEqual({ code: 2, line: "Error: authorization-mode ABAC's authorization policy file not passed" });
    const noMode = await refusal(["--authorization-policy-file=/x"]);
    expect(noMode).toEqual({ code: 2, line: "Error: cannot specify --authorization-policy-file without mode ABAC" });
  });
});
