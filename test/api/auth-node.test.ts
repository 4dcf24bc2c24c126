// Issue 14: --authorization-mode=Node through the API. The decisions themselves are tested on a graph fed
// by a real registry in test/unit/node-authz.test.ts; here, the mode in a real server: callers that are
// not nodes get no opinion (the next authorizer decides), and a node with its client certificate reaches
// what its pods use and nothing else.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { issueClient, makeCA } from "../helpers/certs.ts";
import { TEST_TOKEN, startServer, type TestServer } from "../helpers/server.ts";
import { expectStatus, until } from "./fixtures.ts";

describe("--authorization-mode=Node,...", () => {
  let deny: TestServer, allow: TestServer;
  beforeAll(async () => {
    [deny, allow] = await Promise.all([startServer(["--authorization-mode=Node,AlwaysDeny"]), startServer(["--authorization-mode=Node,AlwaysAllow"])]);
  }, 60_000);
  afterAll(async () => { await Promise.all([deny?.stop(), allow?.stop()]); }, 30_000);

  test("a caller that is not a node gets no opinion from Node: the next authorizer decides", async () => {
    const r = await deny.call("GET", "/api/v1/namespaces/default/secrets/s");
    expect(expectStatus(r, 403, "Forbidden", "get secret").message)
      .toBe(`secrets "s" is forbidden: User "system:anonymous" cannot get resource "secrets" in API group "" in the namespace "default"`);
    expect((await allow.call("GET", "/api/v1/namespaces/default/secrets")).status).toBe(200);
  });

});

describe("as system:node:n1 with a client certificate (--authorization-mode=Node,RBAC)", () => {
  const ca = makeCA("node-client-ca");
  const n1 = issueClient(ca, "system:node:n1", { orgs: ["system:nodes"] });
  let s: TestServer;
  const admin = { authorization: `Bearer ${TEST_TOKEN}` };
  const asNode = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const r = await fetch(`${s.url}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { "content-type": type }, tls: { ca: s.ca, cert: n1.cert, key: n1.key } } as RequestInit);
    return { status: r.status, body: await r.json() as any };
  };
  const pod = (name: string, node: string, secret: string) => ({
    metadata: { name }, spec: { nodeName: node, containers: [{ name: "c", image: "nginx:1.21", envFrom: [{ secretRef: { name: secret } }] }] },
  });
  beforeAll(async () => {
    s = await startServer([`--client-ca-file=${ca.certFile}`, "--authorization-mode=Node,RBAC"]);
    for (const [name, node, secret] of [["web", "n1", "s1"], ["other", "n2", "s2"]]) {
      expect((await s.call("POST", "/api/v1/namespaces/default/secrets", { metadata: { name: secret }, stringData: { k: "v" } }, admin)).status).toBe(201);
      expect((await s.call("POST", "/api/v1/namespaces/default/pods", pod(name, node, secret), admin)).status).toBe(201);
    }
  }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("a Secret its pod uses is readable; another node's pod's Secret is not", async () => {
    await until(async () => (await asNode("GET", "/api/v1/namespaces/default/secrets/s1")).status === 200, "node n1 reads s1");
    const r = await asNode("GET", "/api/v1/namespaces/default/secrets/s2");
    expect(r.status).toBe(403);
    expect(r.body.message).toContain(`User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`);
  });

  test("it may not write another node's pod status or Node", async () => {
    const p = await asNode("PATCH", "/api/v1/namespaces/default/pods/other/status", { status: { phase: "Running" } }, "application/merge-patch+json");
    expect(p.status).toBe(403);
    expect(p.body.message).toContain(`node "n1" can only update pod status for pods with spec.nodeName set to itself`);
    expect((await asNode("PATCH", "/api/v1/nodes/n2/status", { status: {} }, "application/merge-patch+json")).status).toBe(403);
  });

  test("what the system:node role grants, it may do: register its Node, list and watch pods and services", async () => {
    const created = await asNode("POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } });
    expect(created.status).toBe(201);
    expect((await asNode("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1")).status).toBe(200);
    expect((await asNode("GET", "/api/v1/services")).status).toBe(200);
    // but nothing the role does not name
    expect((await asNode("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(403);
  });

  test("once its pod is deleted, the Secret is out of reach", async () => {
    expect((await s.call("DELETE", "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0", undefined, admin)).status).toBe(200);
    await until(async () => (await asNode("GET", "/api/v1/namespaces/default/secrets/s1")).status === 403, "node n1 loses s1");
  });
});
