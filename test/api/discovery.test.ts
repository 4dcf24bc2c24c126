// Discovery: legacy documents, aggregated discovery as kubectl 1.32 asks for it, and /version.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { SERVED as BUILTIN } from "../../pkg/registry/served.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { apiVersionOf, expectCode, expectStatus, gvPath } from "./fixtures.ts";

// Polls below have their own deadlines; a test timeout would kill the server for the tests after it.
setDefaultTimeout(30_000);

let s: TestServer;
beforeAll(async () => { s = await startServer(); }, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

/** What kubectl 1.30+ sends for /api and /apis (CLIENTS.md). */
const AGGREGATED_ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const V2_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const V2BETA1_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

const namedGroups = [...new Set(BUILTIN.filter((d) => d.group).map((d) => d.group))];
const groupVersions = [...new Set(BUILTIN.map((d) => apiVersionOf(d)))];
const verbsOf = (d: (typeof BUILTIN)[number]) => [...(d.verbs ?? ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"])].sort();

describe("legacy discovery", () => {
  test("/api lists the core version", async () => {
    const r = await s.call("GET", "/api");
    expectCode(r, 200, "GET /api");
    expect(r.headers.get("content-type")).toStartWith("application/json");
    expect(r.body.kind).toBe("APIVersions");
    expect(r.body.versions).toEqual(["v1"]);
    expect(Array.isArray(r.body.serverAddressByClientCIDRs)).toBe(true);
    expect(r.body.serverAddressByClientCIDRs[0]).toMatchObject({ clientCIDR: "0.0.0.0/0" });
  });

  test("/apis lists every named group with its preferred version", async () => {
    const r = await s.call("GET", "/apis");
    expectCode(r, 200, "GET /apis");
    expect(r.body.kind).toBe("APIGroupList");
    expect(r.body.apiVersion).toBe("v1");
    const got = (r.body.groups as any[]).map((g) => g.name).sort();
    expect(got).toEqual([...namedGroups].sort());
    const apps = r.body.groups.find((g: any) => g.name === "apps");
    expect(apps.versions).toEqual([{ groupVersion: "apps/v1", version: "v1" }]);
    expect(apps.preferredVersion).toEqual({ groupVersion: "apps/v1", version: "v1" });
    expect(r.body.groups.some((g: any) => g.name === "")).toBe(false);
  });

  test("/apis/apps is the group document", async () => {
    const r = await s.call("GET", "/apis/apps");
    expectCode(r, 200, "GET /apis/apps");
    expect(r.body).toMatchObject({ kind: "APIGroup", apiVersion: "v1", name: "apps", preferredVersion: { groupVersion: "apps/v1", version: "v1" } });
  });

  test("/api/v1 describes the core resources", async () => {
    const r = await s.call("GET", "/api/v1");
    expectCode(r, 200, "GET /api/v1");
    expect(r.body).toMatchObject({ kind: "APIResourceList", apiVersion: "v1", groupVersion: "v1" });
    const res = (name: string) => r.body.resources.find((x: any) => x.name === name);
    expect(res("pods")).toMatchObject({ name: "pods", singularName: "", namespaced: true, kind: "Pod", shortNames: ["po"], categories: ["all"] });
    expect([...res("pods").verbs].sort()).toEqual(["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]);
    expect(res("namespaces")).toMatchObject({ singularName: "", namespaced: false, kind: "Namespace", shortNames: ["ns"] });
    expect(res("services")).toMatchObject({ namespaced: true, kind: "Service", shortNames: ["svc"] });
    expect(res("configmaps")).toMatchObject({ singularName: "", kind: "ConfigMap", shortNames: ["cm"] });
    expect(res("nodes")).toMatchObject({ namespaced: false, kind: "Node", shortNames: ["no"] });
    const st = res("pods/status");
    expect(st).toMatchObject({ name: "pods/status", namespaced: true, kind: "Pod" });
    expect([...st.verbs].sort()).toEqual(["get", "patch", "update"]);
    expect(res("namespaces/finalize")?.verbs).toEqual(["update"]);
    expect(res("configmaps/status")).toBeUndefined();
  });

  test("/apis/apps/v1 describes the apps resources", async () => {
    const r = await s.call("GET", "/apis/apps/v1");
    expectCode(r, 200, "GET /apis/apps/v1");
    expect(r.body).toMatchObject({ kind: "APIResourceList", apiVersion: "v1", groupVersion: "apps/v1" });
    const res = (name: string) => r.body.resources.find((x: any) => x.name === name);
    expect(res("deployments")).toMatchObject({ singularName: "", namespaced: true, kind: "Deployment", shortNames: ["deploy"], categories: ["all"] });
    expect(res("replicasets")).toMatchObject({ kind: "ReplicaSet", shortNames: ["rs"] });
    expect(res("statefulsets")).toMatchObject({ kind: "StatefulSet", shortNames: ["sts"] });
    expect(res("daemonsets")).toMatchObject({ kind: "DaemonSet", shortNames: ["ds"] });
    expect(res("controllerrevisions")).toMatchObject({ kind: "ControllerRevision", namespaced: true });
    expect(res("deployments/status")).toMatchObject({ kind: "Deployment" });
  });

  for (const gv of groupVersions) {
    test(`${gv}: every declared type is described as declared`, async () => {
      const r = await s.call("GET", gvPath({ group: gv.includes("/") ? gv.split("/")[0] : "", version: gv.split("/").at(-1)! }));
      expectCode(r, 200, `GET discovery for ${gv}`);
      expect(r.body.groupVersion).toBe(gv);
      const defs = BUILTIN.filter((d) => apiVersionOf(d) === gv);
      const top = (r.body.resources as any[]).filter((x) => !x.name.includes("/"));
      expect(top.map((x) => x.name).sort()).toEqual(defs.map((d) => d.plural).sort());
      for (const d of defs) {
        const x = top.find((y) => y.name === d.plural);
        expect({ name: x.name, kind: x.kind, namespaced: x.namespaced, singularName: x.singularName }).toEqual({ name: d.plural, kind: d.kind, namespaced: d.namespaced, singularName: "" });
        expect([...x.verbs].sort()).toEqual(verbsOf(d));
        expect(x.shortNames ?? []).toEqual(d.shortNames ?? []);
        for (const sub of d.subresources ?? []) expect((r.body.resources as any[]).some((y) => y.name === `${d.plural}/${sub}`)).toBe(true);
      }
    });
  }

  test("unknown groups and versions → 404", async () => {
    expectStatus(await s.call("GET", "/apis/nope.example.com"), 404, "NotFound", "GET /apis/nope.example.com");
    expectStatus(await s.call("GET", "/apis/apps/v2"), 404, "NotFound", "GET /apis/apps/v2");
    expectStatus(await s.call("GET", "/api/v2"), 404, "NotFound", "GET /api/v2");
  });
});

describe("aggregated discovery", () => {
  async function aggregated(path: string, accept: string, type: string) {
    const r = await s.req(path, { headers: { Accept: accept } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe(type);
    return await r.json() as any;
  }

  test("/apis with kubectl 1.32's Accept answers v2 with the exact Content-Type", async () => {
    const body = await aggregated("/apis", AGGREGATED_ACCEPT, V2_TYPE);
    expect(body.kind).toBe("APIGroupDiscoveryList");
    expect(body.apiVersion).toBe("apidiscovery.k8s.io/v2");
    expect((body.items as any[]).map((g) => g.metadata.name).sort()).toEqual([...namedGroups].sort());
    const apps = body.items.find((g: any) => g.metadata.name === "apps");
    const v1 = apps.versions.find((v: any) => v.version === "v1");
    const dep = v1.resources.find((x: any) => x.resource === "deployments");
    expect(dep).toMatchObject({ resource: "deployments", responseKind: { group: "apps", version: "v1", kind: "Deployment" }, scope: "Namespaced", shortNames: ["deploy"] });
    expect([...dep.verbs].sort()).toEqual(["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]);
    const st = dep.subresources.find((x: any) => x.subresource === "status");
    expect(st.responseKind).toEqual({ group: "apps", version: "v1", kind: "Deployment" });
    const rbac = body.items.find((g: any) => g.metadata.name === "rbac.authorization.k8s.io").versions[0];
    expect(rbac.resources.find((x: any) => x.resource === "clusterroles").scope).toBe("Cluster");
    expect(rbac.resources.find((x: any) => x.resource === "roles").scope).toBe("Namespaced");
  });

  test("/api with kubectl 1.32's Accept describes the core group", async () => {
    const body = await aggregated("/api", AGGREGATED_ACCEPT, V2_TYPE);
    expect(body.kind).toBe("APIGroupDiscoveryList");
    expect(body.items.length).toBe(1);
    const v1 = body.items[0].versions.find((v: any) => v.version === "v1");
    const pods = v1.resources.find((x: any) => x.resource === "pods");
    expect(pods).toMatchObject({ responseKind: { group: "", version: "v1", kind: "Pod" }, scope: "Namespaced", shortNames: ["po"], categories: ["all"] });
    const ns = v1.resources.find((x: any) => x.resource === "namespaces");
    expect(ns).toMatchObject({ responseKind: { group: "", version: "v1", kind: "Namespace" }, scope: "Cluster" });
  });

  test("every declared type is in the aggregated documents with responseKind and scope", async () => {
    const core = await aggregated("/api", AGGREGATED_ACCEPT, V2_TYPE);
    const named = await aggregated("/apis", AGGREGATED_ACCEPT, V2_TYPE);
    const groups = [...core.items, ...named.items];
    for (const d of BUILTIN) {
      const g = groups.find((x: any) => x.metadata.name === d.group);
      const v = g?.versions.find((x: any) => x.version === d.version);
      const res = v?.resources.find((x: any) => x.resource === d.plural);
      if (!res) throw new Error(`${apiVersionOf(d)} ${d.plural} missing from aggregated discovery`);
      expect(res.responseKind).toEqual({ group: d.group, version: d.version, kind: d.kind });
      expect(res.scope).toBe(d.namespaced ? "Namespaced" : "Cluster");
    }
  });

  test("kubectl 1.27–1.29's Accept gets v2beta1", async () => {
    const accept = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    const body = await aggregated("/apis", accept, V2BETA1_TYPE);
    expect(body.apiVersion).toBe("apidiscovery.k8s.io/v2beta1");
    expect(body.kind).toBe("APIGroupDiscoveryList");
  });

  test("plain application/json and older kubectl get the legacy documents", async () => {
    for (const accept of ["application/json", "application/json, */*"]) {
      const r = await s.req("/apis", { headers: { Accept: accept } });
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toStartWith("application/json");
      expect(r.headers.get("content-type")).not.toContain("apidiscovery");
      expect((await r.json() as any).kind).toBe("APIGroupList");
    }
    const r = await s.req("/api", { headers: { Accept: "application/json, */*" } });
    expect((await r.json() as any).kind).toBe("APIVersions");
  });
});

describe("/version", () => {
  test("reports the v1.21 API level", async () => {
    const r = await s.call("GET", "/version");
    expectCode(r, 200, "GET /version");
    expect(r.headers.get("content-type")).toStartWith("application/json");
    expect(r.body.major).toBe("1");
    expect(r.body.minor).toBe("21");
    expect(r.body.gitVersion).toStartWith("v1.21.");
    for (const f of ["gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"]) expect(typeof r.body[f]).toBe("string");
  });

  test("answers kubectl's dispatcher probe", async () => {
    const r = await s.call("GET", "/version?timeout=5s");
    expectCode(r, 200, "GET /version?timeout=5s");
    expect(r.body.minor).toBe("21");
  });
});
