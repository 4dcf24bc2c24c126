// The objects every v1.21 cluster has, made and kept by the server: the system namespaces, the
// `kubernetes` Service and Endpoints, a `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap in
// every namespace, and the read-only componentstatuses.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus, until } from "./fixtures.ts";

setDefaultTimeout(60_000);

const SYSTEM = ["default", "kube-system", "kube-public", "kube-node-lease"];
let s: TestServer;
/** The cluster CA as published: the PEM with LF line ends. */
const ca = () => s.ca.replace(/\r\n/g, "\n");

beforeAll(async () => { s = await startServer(); }, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

const get = (path: string) => s.call("GET", path);
const exists = async (path: string) => (await get(path)).status === 200;
const sa = (ns: string) => `/api/v1/namespaces/${ns}/serviceaccounts/default`;
const rootCA = (ns: string) => `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`;
const svc = "/api/v1/namespaces/default/services/kubernetes";
const eps = "/api/v1/namespaces/default/endpoints/kubernetes";

describe("at start, before /readyz", () => {
  test("the system namespaces exist and are Active", async () => {
    for (const ns of SYSTEM) {
      const r = await get(`/api/v1/namespaces/${ns}`);
      expectCode(r, 200, `GET namespace ${ns}`);
      expect(r.body.status.phase).toBe("Active");
    }
  });

  test("every system namespace has its default ServiceAccount and kube-root-ca.crt holding the cluster CA", async () => {
    for (const ns of SYSTEM) {
      const a = await get(sa(ns));
      expectCode(a, 200, `GET ${ns} default ServiceAccount`);
      const cm = await get(rootCA(ns));
      expectCode(cm, 200, `GET ${ns} kube-root-ca.crt`);
      expect(cm.body.data).toEqual({ "ca.crt": ca() });
    }
  });

  test("the kubernetes Service: the range's first address, 443/https to the secure port", async () => {
    const r = await get(svc);
    expectCode(r, 200, "GET kubernetes Service");
    expect(r.body.metadata.labels).toEqual({ component: "apiserver", provider: "kubernetes" });
    expect(r.body.spec).toMatchObject({ type: "ClusterIP", clusterIP: "10.96.0.1", clusterIPs: ["10.96.0.1"], sessionAffinity: "None" });
    expect(r.body.spec.ports).toHaveLength(1);
    expect(r.body.spec.ports[0]).toMatchObject({ name: "https", protocol: "TCP", port: 443, targetPort: s.port });
  });

  test("its Endpoints point at the API server", async () => {
    const r = await get(eps);
    expectCode(r, 200, "GET kubernetes Endpoints");
    expect(r.body.subsets).toEqual([{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: s.port, protocol: "TCP" }] }]);
  });
});

describe("kept", () => {
  test("a new namespace gets its default ServiceAccount and kube-root-ca.crt", async () => {
    await createNamespace(s, "fresh");
    await until(async () => (await exists(sa("fresh"))) && (await exists(rootCA("fresh"))), "default ServiceAccount and kube-root-ca.crt in a new namespace");
    expect((await get(rootCA("fresh"))).body.data["ca.crt"]).toBe(ca());
  });

  test("a deleted default ServiceAccount comes back", async () => {
    const before = (await get(sa("default"))).body.metadata.uid;
    expectCode(await s.call("DELETE", sa("default")), 200, "DELETE default ServiceAccount");
    const back = await until(async () => { const r = await get(sa("default")); return r.status === 200 && r.body.metadata.uid !== before && r.body; }, "default ServiceAccount recreated");
    expect(back.metadata.name).toBe("default");
  });

  test("a deleted or changed kube-root-ca.crt is put back", async () => {
    const before = (await get(rootCA("kube-public"))).body.metadata.uid;
    expectCode(await s.call("DELETE", rootCA("kube-public")), 200, "DELETE kube-root-ca.crt");
    await until(async () => { const r = await get(rootCA("kube-public")); return r.status === 200 && r.body.metadata.uid !== before; }, "kube-root-ca.crt recreated");

    const p = await s.call("PATCH", rootCA("kube-public"), { data: { "ca.crt": "tampered", extra: "x" } }, { "content-type": "application/merge-patch+json" });
    expectCode(p, 200, "PATCH kube-root-ca.crt");
    await until(async () => Bun.deepEquals((await get(rootCA("kube-public"))).body.data, { "ca.crt": ca() }), "kube-root-ca.crt repaired");
  });

  test("a deleted or changed kubernetes Service and Endpoints are put back", async () => {
    const before = (await get(svc)).body;
    expectCode(await s.call("DELETE", svc), 200, "DELETE kubernetes Service");
    const back = await until(async () => { const r = await get(svc); return r.status === 200 && r.body.metadata.uid !== before.metadata.uid && r.body; }, "kubernetes Service recreated");
    expect(back.spec.clusterIP).toBe("10.96.0.1");

    const p = await s.call("PATCH", svc, { spec: { ports: [{ name: "https", port: 8443, protocol: "TCP", targetPort: 1 }] } }, { "content-type": "application/merge-patch+json" });
    expectCode(p, 200, "PATCH kubernetes Service ports");
    await until(async () => (await get(svc)).body.spec.ports[0].port === 443, "kubernetes Service ports reset");

    expectCode(await s.call("DELETE", eps), 200, "DELETE kubernetes Endpoints");
    await until(() => exists(eps), "kubernetes Endpoints recreated");
    const e = await s.call("PATCH", eps, { subsets: [{ addresses: [{ ip: "10.1.1.1" }], ports: [{ name: "https", port: 1, protocol: "TCP" }] }] }, { "content-type": "application/merge-patch+json" });
    expectCode(e, 200, "PATCH kubernetes Endpoints");
    await until(async () => (await get(eps)).body.subsets[0].addresses[0].ip === "127.0.0.1", "kubernetes Endpoints reset");
  });

  test("a namespace with its built-in objects is still deleted", async () => {
    await createNamespace(s, "doomed");
    await until(async () => (await exists(sa("doomed"))) && (await exists(rootCA("doomed"))), "built-in objects in doomed");
    expectCode(await s.call("DELETE", "/api/v1/namespaces/doomed"), 200, "DELETE namespace doomed");
    await until(async () => (await get("/api/v1/namespaces/doomed")).status === 404, "namespace doomed gone", 20_000);
  });
});

describe("componentstatuses", () => {
  const WARNING = '299 - "v1 ComponentStatus is deprecated in v1.19+"';

  test("list and get report the store as etcd-0, with the deprecation warning", async () => {
    const l = await get("/api/v1/componentstatuses");
    expectCode(l, 200, "LIST componentstatuses");
    expect(l.headers.get("warning")).toBe(WARNING);
    expect(l.body.kind).toBe("ComponentStatusList");
    expect(l.body.items).toEqual([{
      kind: "ComponentStatus", apiVersion: "v1", metadata: { name: "etcd-0", creationTimestamp: null },
      conditions: [{ type: "Healthy", status: "True", message: '{"health":"true"}' }],
    }]);
    const g = await get("/api/v1/componentstatuses/etcd-0");
    expectCode(g, 200, "GET componentstatuses/etcd-0");
    expect(g.headers.get("warning")).toBe(WARNING);
    expect(g.body.conditions[0].status).toBe("True");
    expectStatus(await get("/api/v1/componentstatuses/nope"), 404, "NotFound", "GET a missing component");
  });

  test("read-only: writes and watches are 405", async () => {
    const body = { apiVersion: "v1", kind: "ComponentStatus", metadata: { name: "x" } };
    expectStatus(await s.call("POST", "/api/v1/componentstatuses", body), 405, "MethodNotAllowed", "POST");
    expectStatus(await s.call("PUT", "/api/v1/componentstatuses/etcd-0", { ...body, metadata: { name: "etcd-0" } }), 405, "MethodNotAllowed", "PUT");
    expectStatus(await s.call("DELETE", "/api/v1/componentstatuses/etcd-0"), 405, "MethodNotAllowed", "DELETE");
    expectStatus(await get("/api/v1/componentstatuses?watch=true"), 405, "MethodNotAllowed", "watch");
  });

  test("Table: Name, Status, Message, Error", async () => {
    const r = await s.call("GET", "/api/v1/componentstatuses", undefined, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expectCode(r, 200, "LIST componentstatuses as Table");
    expect(r.body.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Status", "Message", "Error"]);
    expect(r.body.rows[0].cells).toEqual(["etcd-0", "Healthy", '{"health":"true"}', ""]);
  });

  test("discovery: cluster-scoped, get and list, short name cs", async () => {
    const r = (await get("/api/v1")).body.resources.find((x: any) => x.name === "componentstatuses");
    expect(r).toMatchObject({ namespaced: false, kind: "ComponentStatus", verbs: ["get", "list"], shortNames: ["cs"] });
  });
});

test("a restart keeps the same objects; another --service-cluster-ip-range gives its first address", async () => {
  const uids = async (srv: TestServer) => Promise.all([svc, eps, sa("default"), rootCA("default")].map(async (p) => (await srv.call("GET", p)).body.metadata.uid));
  const before = await uids(s);
  await s.stop();
  s = await startServer([], s.dataDir);
  expect(await uids(s)).toEqual(before);

  const other = await startServer(["--service-cluster-ip-range=10.100.0.0/24"]);
  try {
    expect((await other.call("GET", svc)).body.spec.clusterIP).toBe("10.100.0.1");
  } finally {
    await other.stop();
  }
});
