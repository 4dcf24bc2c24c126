// Namespaces: the system ones exist, content needs a live namespace, and deleting one empties it
// (Terminating), then removes it.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus, until } from "./fixtures.ts";

// Polls below have their own deadlines; a test timeout would kill the server for the tests after it.
setDefaultTimeout(30_000);

let s: TestServer;

beforeAll(async () => { s = await startServer(); }, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

const container = { name: "c", image: "nginx:1.21" };
const merge = { "Content-Type": "application/merge-patch+json" };

describe("system namespaces", () => {
  for (const name of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
    test(`${name} exists and is Active`, async () => {
      const r = await s.call("GET", `/api/v1/namespaces/${name}`);
      expectCode(r, 200, `GET namespace ${name}`);
      expect(r.body.kind).toBe("Namespace");
      expect(r.body.apiVersion).toBe("v1");
      expect(r.body.metadata.name).toBe(name);
      expect(typeof r.body.metadata.uid).toBe("string");
      expect(r.body.status.phase).toBe("Active");
      expect(r.body.spec.finalizers).toEqual(["kubernetes"]);
    });
  }

  test("the list of namespaces holds all four", async () => {
    const r = await s.call("GET", "/api/v1/namespaces");
    expectCode(r, 200, "LIST namespaces");
    expect(r.body.kind).toBe("NamespaceList");
    const names = r.body.items.map((o: any) => o.metadata.name);
    for (const n of ["default", "kube-system", "kube-public", "kube-node-lease"]) expect(names).toContain(n);
  });

  test("a new namespace is Active with the kubernetes finalizer", async () => {
    const r = await s.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "fresh" } });
    expectCode(r, 201, "POST namespace");
    expect(r.body.status.phase).toBe("Active");
    expect(r.body.spec.finalizers).toEqual(["kubernetes"]);
  });
});

describe("content needs a namespace", () => {
  test("create in a missing namespace → 404 NotFound for the namespace", async () => {
    const r = await s.call("POST", "/api/v1/namespaces/missing/configmaps", { metadata: { name: "x" } });
    const st = expectStatus(r, 404, "NotFound", "POST configmap into missing namespace");
    expect(st.details).toMatchObject({ name: "missing", kind: "namespaces" });
    expect(st.message).toBe(`namespaces "missing" not found`);
    const d = await s.call("POST", "/apis/apps/v1/namespaces/missing/deployments", {
      metadata: { name: "d" }, spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [container] } } },
    });
    expectStatus(d, 404, "NotFound", "POST deployment into missing namespace");
  });

  test("reading a missing namespace's content is an empty list, not an error", async () => {
    const r = await s.call("GET", "/api/v1/namespaces/missing/configmaps");
    expectCode(r, 200, "LIST configmaps in missing namespace");
    expect(r.body.items).toEqual([]);
  });
});

describe("deleting a namespace", () => {
  const NS = "doomed";
  const held = `/api/v1/namespaces/${NS}/configmaps/held`;

  beforeAll(async () => {
    await createNamespace(s, NS);
    const posts: [string, unknown][] = [
      [`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "cm1" }, data: { a: "b" } }],
      [`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "cm2" } }],
      // A finalizer nobody removes keeps the namespace Terminating until the test removes it.
      [`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "held", finalizers: ["example.com/hold"] } }],
      [`/api/v1/namespaces/${NS}/secrets`, { metadata: { name: "s1" }, data: { k: Buffer.from("v").toString("base64") } }],
      [`/api/v1/namespaces/${NS}/pods`, { metadata: { name: "p1" }, spec: { containers: [container] } }],
      [`/api/v1/namespaces/${NS}/services`, { metadata: { name: "svc1" }, spec: { ports: [{ port: 80 }] } }],
      [`/apis/apps/v1/namespaces/${NS}/deployments`, {
        metadata: { name: "d1" }, spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [container] } } },
      }],
      [`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, { metadata: { name: "r1" }, rules: [] }],
    ];
    for (const [path, body] of posts) expectCode(await s.call("POST", path, body), 201, `POST ${path}`);
  }, 30_000);

  test("DELETE answers 200 with the namespace in phase Terminating", async () => {
    const r = await s.call("DELETE", `/api/v1/namespaces/${NS}`);
    expectCode(r, 200, "DELETE namespace");
    expect(r.body.kind).toBe("Namespace");
    expect(r.body.status.phase).toBe("Terminating");
    expect(typeof r.body.metadata.deletionTimestamp).toBe("string");
    const g = await s.call("GET", `/api/v1/namespaces/${NS}`);
    expectCode(g, 200, "GET terminating namespace");
    expect(g.body.status.phase).toBe("Terminating");
    expect(g.body.metadata.deletionTimestamp).toBe(r.body.metadata.deletionTimestamp);
  });

  test("create in a terminating namespace → 403 Forbidden", async () => {
    const r = await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "late" } });
    const st = expectStatus(r, 403, "Forbidden", "POST configmap into terminating namespace");
    expect(st.message).toContain(`unable to create new content in namespace ${NS} because it is being terminated`);
    expect(st.details?.kind).toBe("configmaps");
    const d = await s.call("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, {
      metadata: { name: "late" }, spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [container] } } },
    });
    expectStatus(d, 403, "Forbidden", "POST deployment into terminating namespace");
  });

  test("re-creating the terminating namespace → 409 AlreadyExists", async () => {
    expectStatus(await s.call("POST", "/api/v1/namespaces", { metadata: { name: NS } }), 409, "AlreadyExists", "POST terminating namespace again");
  });

  test("its contents are deleted", async () => {
    const lists = [
      `/api/v1/namespaces/${NS}/secrets`, `/api/v1/namespaces/${NS}/pods`, `/api/v1/namespaces/${NS}/services`,
      `/apis/apps/v1/namespaces/${NS}/deployments`, `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`,
    ];
    await until(async () => {
      for (const l of lists) if ((await s.call("GET", l)).body.items?.length !== 0) return false;
      const cms = (await s.call("GET", `/api/v1/namespaces/${NS}/configmaps`)).body.items ?? [];
      return cms.length === 1 && cms[0].metadata.name === "held";
    }, "the namespace's contents to be deleted", 8_000);
    const h = await s.call("GET", held);
    expectCode(h, 200, "GET held configmap");
    expect(typeof h.body.metadata.deletionTimestamp).toBe("string");
    const ns = await s.call("GET", `/api/v1/namespaces/${NS}`);
    expectCode(ns, 200, "namespace stays while content is held");
    expect(ns.body.status.phase).toBe("Terminating");
  });

  test("once the last content is gone, the namespace disappears", async () => {
    const p = await s.call("PATCH", held, { metadata: { finalizers: null } }, merge);
    expectCode(p, 200, "PATCH away the finalizer");
    await until(async () => (await s.call("GET", held)).status === 404, "held configmap to go", 5_000);
    // the controller looks again half the finalizer estimate (15 s) after the pass that found the held
    // object: up to 8 s, plus that pass's listing of every type (slower on etcd)
    await until(async () => (await s.call("GET", `/api/v1/namespaces/${NS}`)).status === 404, "namespace to go", 20_000);
    const names = (await s.call("GET", "/api/v1/namespaces")).body.items.map((o: any) => o.metadata.name);
    expect(names).not.toContain(NS);
  });

  test("the name can be used again afterwards", async () => {
    const r = await s.call("POST", "/api/v1/namespaces", { metadata: { name: NS } });
    expectCode(r, 201, "POST namespace again");
    expect(r.body.status.phase).toBe("Active");
    expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "cm1" } }), 201, "POST configmap into new namespace");
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/secrets`)).body.items).toEqual([]);
  });
});

describe("namespaces the system needs", () => {
  // Upstream's NamespaceLifecycle admission refuses to delete these (403), so a cluster cannot lose them.
  for (const name of ["default", "kube-system", "kube-public"]) {
    test(`deleting ${name} → 403 Forbidden`, async () => {
      const r = await s.call("DELETE", `/api/v1/namespaces/${name}`);
      expectStatus(r, 403, "Forbidden", `DELETE namespace ${name}`);
      const g = await s.call("GET", `/api/v1/namespaces/${name}`);
      expectCode(g, 200, `GET ${name}`);
      expect(g.body.status.phase).toBe("Active");
    });
  }
});
