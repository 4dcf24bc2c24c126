// The scale subresource (autoscaling/v1 Scale) of deployments, replicasets, statefulsets and
// replicationcontrollers: reads, writes with resourceVersion preconditions, every patch type, protobuf,
// Table, discovery and OpenAPI, against a real `kite apiserver`.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import type { ResourceDef } from "../../pkg/registry/types.ts";
import { decodeObject, encodeObject } from "../../pkg/protobuf/index.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus, minimalBody, pathFor, typeLabel } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "scale";
const PROTOBUF = "application/vnd.kubernetes.protobuf";
let s: TestServer;

const SCALABLE = BUILTIN.filter((d) => d.subresources?.includes("scale"));
const qualified = (d: ResourceDef) => (d.group ? `${d.plural}.${d.group}` : d.plural);

beforeAll(async () => {
  s = await startServer();
  await createNamespace(s, NS);
}, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

/** Creates a parent with 2 replicas; returns it. */
async function parent(d: ResourceDef, name: string): Promise<any> {
  const body = minimalBody(d, name, NS);
  body.spec.replicas = 2;
  const c = await s.call("POST", pathFor(d, NS), body);
  expectCode(c, 201, `create ${typeLabel(d)} ${name}`);
  return c.body;
}

const scalePath = (d: ResourceDef, name: string) => `${pathFor(d, NS, name)}/scale`;

test("the four workload kinds declare it", () => {
  expect(SCALABLE.map((d) => d.plural).sort()).toEqual(["deployments", "replicasets", "replicationcontrollers", "statefulsets"]);
});

describe.each(SCALABLE.map((d) => [typeLabel(d), d] as const))("%s", (_label, d) => {
  const name = `s-${d.singular}`;

  test("GET is the parent's Scale: identity, replicas and selector", async () => {
    const p = await parent(d, name);
    const r = await s.call("GET", scalePath(d, name));
    expectCode(r, 200, "GET scale");
    expect(r.body).toEqual({
      kind: "Scale", apiVersion: "autoscaling/v1",
      metadata: {
        name, namespace: NS, uid: p.metadata.uid, resourceVersion: p.metadata.resourceVersion, creationTimestamp: p.metadata.creationTimestamp,
      },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: `app=${name}` },
    });
  });

  test("PUT with the current resourceVersion changes only spec.replicas; a stale one is 409", async () => {
    const before = (await s.call("GET", pathFor(d, NS, name))).body;
    const cur = (await s.call("GET", scalePath(d, name))).body;
    const put = await s.call("PUT", `${scalePath(d, name)}?fieldManager=scaler`, { ...cur, spec: { replicas: 3 } });
    expectCode(put, 200, "PUT scale");
    expect(put.body.kind).toBe("Scale");
    expect(put.body.spec.replicas).toBe(3);
    expect(Number(put.body.metadata.resourceVersion)).toBeGreaterThan(Number(cur.metadata.resourceVersion));

    const after = (await s.call("GET", pathFor(d, NS, name))).body;
    expect(after.spec.replicas).toBe(3);
    expect(after.metadata.resourceVersion).toBe(put.body.metadata.resourceVersion);
    expect(after.metadata.generation).toBe(before.metadata.generation + 1);
    expect({ ...after.spec, replicas: 2 }).toEqual(before.spec);
    expect(after.metadata.managedFields.map((f: any) => f.manager)).toContain("scaler");

    const stale = await s.call("PUT", scalePath(d, name), { ...cur, spec: { replicas: 5 } });
    const st = expectStatus(stale, 409, "Conflict", "PUT scale with a stale resourceVersion");
    expect(st.message).toBe(`Operation cannot be fulfilled on ${qualified(d)} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
    expect((await s.call("GET", pathFor(d, NS, name))).body.spec.replicas).toBe(3);

    // Without a resourceVersion the write is unconditional.
    const free = await s.call("PUT", scalePath(d, name), { kind: "Scale", apiVersion: "autoscaling/v1", metadata: { name }, spec: { replicas: 4 } });
    expectCode(free, 200, "PUT scale without resourceVersion");
    expect(free.body.spec.replicas).toBe(4);
  });

  test("PATCH: merge, JSON and strategic merge patches", async () => {
    const patches: [string, unknown, number][] = [
      ["application/merge-patch+json", { spec: { replicas: 5 } }, 5],
      ["application/json-patch+json", [{ op: "replace", path: "/spec/replicas", value: 6 }], 6],
      ["application/strategic-merge-patch+json", { spec: { replicas: 7 } }, 7],
    ];
    for (const [type, body, want] of patches) {
      const r = await s.call("PATCH", scalePath(d, name), body, { "content-type": type });
      expectCode(r, 200, `PATCH scale ${type}`);
      expect(r.body.spec.replicas).toBe(want);
      expect((await s.call("GET", pathFor(d, NS, name))).body.spec.replicas).toBe(want);
    }
    // A patch naming an old resourceVersion is a precondition.
    const old = await s.call("PATCH", scalePath(d, name), { metadata: { resourceVersion: "1" }, spec: { replicas: 1 } }, { "content-type": "application/merge-patch+json" });
    expectStatus(old, 409, "Conflict", "PATCH scale with a stale resourceVersion");
  });

  test("dry run changes nothing; scale to zero", async () => {
    const rv = (await s.call("GET", pathFor(d, NS, name))).body.metadata.resourceVersion;
    const dry = await s.call("PATCH", `${scalePath(d, name)}?dryRun=All`, { spec: { replicas: 9 } }, { "content-type": "application/merge-patch+json" });
    expectCode(dry, 200, "dry-run PATCH scale");
    expect(dry.body.spec.replicas).toBe(9);
    const p = (await s.call("GET", pathFor(d, NS, name))).body;
    expect(p.spec.replicas).toBe(7);
    expect(p.metadata.resourceVersion).toBe(rv);

    const zero = await s.call("PATCH", scalePath(d, name), { spec: { replicas: 0 } }, { "content-type": "application/merge-patch+json" });
    expectCode(zero, 200, "scale to 0");
    expect(zero.body.spec).toEqual({}); // replicas is omitempty in Scale
    expect((await s.call("GET", pathFor(d, NS, name))).body.spec.replicas).toBe(0);
  });

  test("invalid replicas are 422 as upstream words it; nothing is written", async () => {
    const r = await s.call("PATCH", scalePath(d, name), { spec: { replicas: -1 } }, { "content-type": "application/merge-patch+json" });
    const st = expectStatus(r, 422, "Invalid", "negative replicas");
    expect(st.message).toBe(`Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`);
    expect(st.details).toMatchObject({ name, group: "autoscaling", kind: "Scale", causes: [{ field: "spec.replicas", reason: "FieldValueInvalid" }] });
    expect((await s.call("GET", pathFor(d, NS, name))).body.spec.replicas).toBe(0);
  });

  test("protobuf in and out", async () => {
    const g = await s.req(scalePath(d, name), { headers: { accept: PROTOBUF } });
    expect(g.status).toBe(200);
    expect(g.headers.get("content-type")).toBe(PROTOBUF);
    const sc = decodeObject(new Uint8Array(await g.arrayBuffer()));
    expect(sc.kind).toBe("Scale");
    expect(sc.status.selector).toBe(`app=${name}`);
    const body = encodeObject({ ...sc, spec: { replicas: 2 } });
    const put = await s.req(scalePath(d, name), { method: "PUT", body, headers: { "content-type": PROTOBUF, accept: PROTOBUF } });
    expect(put.status).toBe(200);
    expect(decodeObject(new Uint8Array(await put.arrayBuffer())).spec.replicas).toBe(2);
  });

  test("Table: Name, Desired, Available, Age", async () => {
    const r = await s.call("GET", scalePath(d, name), undefined, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expectCode(r, 200, "GET scale as Table");
    expect(r.body.kind).toBe("Table");
    expect(r.body.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Desired", "Available", "Age"]);
    expect(r.body.rows[0].cells.slice(0, 3)).toEqual([name, 2, 0]);
  });

  test("a missing parent is 404; a body of another kind or name is 400; DELETE is 405", async () => {
    const missing = await s.call("GET", scalePath(d, "nope"));
    const st = expectStatus(missing, 404, "NotFound", "scale of a missing object");
    expect(st.message).toBe(`${qualified(d)} "nope" not found`);
    const other = await s.call("PUT", scalePath(d, name), { kind: d.kind, apiVersion: "autoscaling/v1", metadata: { name }, spec: { replicas: 1 } });
    expect(expectStatus(other, 400, "BadRequest", "PUT of another kind").message).toContain("must be of type Scale");
    const renamed = await s.call("PUT", scalePath(d, name), { kind: "Scale", apiVersion: "autoscaling/v1", metadata: { name: "other" }, spec: { replicas: 1 } });
    expect(expectStatus(renamed, 400, "BadRequest", "PUT naming another object").message).toBe(`the name of the object (other) does not match the name on the URL (${name})`);
    expectStatus(await s.call("DELETE", scalePath(d, name)), 405, "MethodNotAllowed", "DELETE scale");
  });
});

test("status.selector is the selector string of matchLabels and matchExpressions, sorted by key", async () => {
  const d = BUILTIN.find((x) => x.kind === "Deployment")!;
  const body = minimalBody(d, "sel", NS);
  body.spec.selector = { matchLabels: { app: "sel" }, matchExpressions: [{ key: "tier", operator: "In", values: ["web", "api"] }, { key: "env", operator: "DoesNotExist" }] };
  body.spec.template.metadata.labels = { app: "sel", tier: "web" };
  expectCode(await s.call("POST", pathFor(d, NS), body), 201, "create deployment with expressions");
  const r = await s.call("GET", scalePath(d, "sel"));
  expect(r.body.status.selector).toBe("app=sel,!env,tier in (api,web)");
});

test("discovery lists each scale subresource as autoscaling/v1 Scale with get, patch, update", async () => {
  const apps = (await s.call("GET", "/apis/apps/v1")).body.resources;
  const core = (await s.call("GET", "/api/v1")).body.resources;
  for (const [list, plural] of [[apps, "deployments"], [apps, "replicasets"], [apps, "statefulsets"], [core, "replicationcontrollers"]] as const) {
    expect(list.find((r: any) => r.name === `${plural}/scale`)).toEqual({
      name: `${plural}/scale`, singularName: "", namespaced: true, group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get", "patch", "update"],
    });
  }
  expect(apps.find((r: any) => r.name === "daemonsets/scale")).toBeUndefined();
  const agg = await s.call("GET", "/apis", undefined, { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" });
  const deployments = agg.body.items.find((g: any) => g.metadata.name === "apps").versions[0].resources.find((r: any) => r.resource === "deployments");
  expect(deployments.subresources).toContainEqual({ subresource: "scale", responseKind: { group: "autoscaling", version: "v1", kind: "Scale" }, verbs: ["get", "patch", "update"] });
});

test("OpenAPI v3 describes the scale paths with the Scale schema", async () => {
  const doc = (await s.call("GET", "/openapi/v3/apis/apps/v1")).body;
  const path = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"];
  expect(path.get.operationId).toBe("readAppsV1NamespacedDeploymentScale");
  expect(path.put.operationId).toBe("replaceAppsV1NamespacedDeploymentScale");
  expect(path.patch.operationId).toBe("patchAppsV1NamespacedDeploymentScale");
  expect(path.get["x-kubernetes-group-version-kind"]).toEqual({ group: "autoscaling", kind: "Scale", version: "v1" });
  expect(path.get.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/io.k8s.api.autoscaling.v1.Scale");
  expect(doc.components.schemas["io.k8s.api.autoscaling.v1.ScaleStatus"].properties.selector.type).toBe("string");
});

test("OpenAPI v2 (kubectl's) describes the scale paths too", async () => {
  const doc = (await s.call("GET", "/openapi/v2")).body;
  const path = doc.paths["/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}/scale"];
  expect(path.put.operationId).toBe("replaceAppsV1NamespacedStatefulSetScale");
  expect(path.get["x-kubernetes-group-version-kind"]).toEqual({ group: "autoscaling", kind: "Scale", version: "v1" });
  expect(doc.definitions["io.k8s.api.autoscaling.v1.Scale"]).toBeDefined();
  expect(doc.paths["/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/scale"]).toBeDefined();
});
