// Issue 14: the authentication and authorization filters of the request path — 401 when no authenticator
// vouches for a caller and anonymous requests are off, 403 in upstream's words when the authorizers deny,
// and the always-allowed health paths.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { expectStatus } from "./fixtures.ts";

describe("--authorization-mode=AlwaysDeny", () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(["--authorization-mode=AlwaysDeny"]); }, 30_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("a namespaced list is 403 naming the user, verb, resource, group and namespace", async () => {
    const r = await s.call("GET", "/api/v1/namespaces/default/configmaps");
    const st = expectStatus(r, 403, "Forbidden", "list configmaps");
    expect(st.message).toBe(`configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"`);
    expect(st.details).toEqual({ kind: "configmaps" });
  });

  test("a named get of a cluster-scoped subresource says so, with its group", async () => {
    const r = await s.call("GET", "/apis/apps/v1/namespaces/default/deployments/web/status");
    const st = expectStatus(r, 403, "Forbidden", "get deployment status");
    expect(st.message).toBe(`deployments.apps "web" is forbidden: User "system:anonymous" cannot get resource "deployments/status" in API group "apps" in the namespace "default"`);
    const c = await s.call("DELETE", "/api/v1/nodes/n1");
    expect(expectStatus(c, 403, "Forbidden", "delete node").message).toBe(`nodes "n1" is forbidden: User "system:anonymous" cannot delete resource "nodes" in API group "" at the cluster scope`);
  });

  test("a non-resource path is 403 naming the path", async () => {
    const r = await s.call("GET", "/version");
    expect(expectStatus(r, 403, "Forbidden", "version").message).toBe(`forbidden: User "system:anonymous" cannot get path "/version"`);
  });

  test("health paths are always allowed", async () => {
    for (const p of ["/healthz", "/readyz", "/livez"]) expect((await s.req(p)).status).toBe(200);
  });

  test("nothing is written when the write is denied", async () => {
    const w = await s.call("POST", "/api/v1/namespaces", { metadata: { name: "denied" } });
    expectStatus(w, 403, "Forbidden", "create namespace");
  });
});

describe("--anonymous-auth=false", () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(["--anonymous-auth=false"]); }, 30_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("a request without credentials is 401 Unauthorized, health paths too", async () => {
    for (const p of ["/api/v1/namespaces", "/version", "/readyz"]) {
      const r = await s.call("GET", p);
      expect(expectStatus(r, 401, "Unauthorized", p).message).toBe("Unauthorized");
    }
  });
});

describe("defaults", () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(); }, 30_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("AlwaysAllow with anonymous requests: an anonymous caller may write", async () => {
    const r = await s.call("POST", "/api/v1/namespaces", { metadata: { name: "anon-ok" } });
    expect(r.status).toBe(201);
  });
});

describe("the start-up warning", () => {
  const logOf = async (args: string[]) => {
    const s = await startServer(args);
    await s.stop();
    return await new Response(s.proc.stderr as ReadableStream).text();
  };

  test("a server on every address with AlwaysAllow says so in one line; on loopback, or with RBAC, it does not", async () => {
    const open = await logOf(["--bind-address=0.0.0.0"]);
    expect(open.split("\n").filter((l) => l.includes("--authorization-mode=AlwaysAllow: anyone who reaches the port may do anything"))).toHaveLength(1);
    expect(await logOf([])).not.toContain("anyone who reaches the port");
    expect(await logOf(["--bind-address=0.0.0.0", "--authorization-mode=RBAC"])).not.toContain("anyone who reaches the port");
  }, 60_000);
});
