// PATCH against a real `kite apiserver` (spec §4.2; upstream v1.21 where the spec is silent): JSON merge
// patch (RFC 7386), JSON patch (RFC 6902, `test` included), strategic merge patch with upstream's merge keys
// and directives on a Deployment and a Service, unsupported media types, the status subresource, and the
// rule that a patch that fails writes nothing.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, type Reply, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "patching";
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;
const SVC = `/api/v1/namespaces/${NS}/services`;

const MERGE = "application/merge-patch+json";
const JSONP = "application/json-patch+json";
const SMP = "application/strategic-merge-patch+json";
/** The patch types upstream lists in a PATCH's 415 for built-in kinds, in its order. */
const PATCH_TYPES = "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml";

let s: TestServer;
useServer(NS, (started) => (s = started));

const patch = (path: string, type: string, body: unknown, query = ""): Promise<Reply> =>
  s.call("PATCH", `${path}${query}`, body, { "Content-Type": type });
const get = async (path: string) => {
  const r = await s.call("GET", path);
  expectCode(r, 200, `GET ${path}`);
  return r.body;
};
/** The collection's list resourceVersion: it moves whenever anything is written. */
const listRV = async (path: string): Promise<string> => (await get(path)).metadata.resourceVersion;

async function createCM(name: string, data: Record<string, string>, extra: Record<string, any> = {}) {
  const r = await s.call("POST", CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...extra }, data });
  expectCode(r, 201, `create configmap ${name}`);
  return r.body;
}

const webContainer = () => ({
  name: "web", image: "nginx:1.20",
  env: [{ name: "X", value: "1" }, { name: "Y", value: "2" }],
  ports: [{ containerPort: 80, protocol: "TCP" }],
});
const sidecar = () => ({ name: "sidecar", image: "busybox:1.33", args: ["sleep", "3600"] });

async function createDeployment(name: string, spec: Record<string, any> = {}) {
  const labels = { app: name };
  const body = {
    apiVersion: "apps/v1", kind: "Deployment", metadata: { name, labels },
    spec: {
      replicas: 1, selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [webContainer(), sidecar()], volumes: [{ name: "data", emptyDir: {} }] } },
      ...spec,
    },
  };
  const r = await s.call("POST", DEP, body);
  expectCode(r, 201, `create deployment ${name}`);
  return r.body;
}

async function createService(name: string) {
  const r = await s.call("POST", SVC, {
    apiVersion: "v1", kind: "Service", metadata: { name },
    spec: {
      selector: { app: name },
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }, { name: "https", port: 443, targetPort: 8443, protocol: "TCP" }],
    },
  });
  expectCode(r, 201, `create service ${name}`);
  return r.body;
}

const podSpecOf = (d: any) => d.spec.template.spec;
const containerNames = (d: any) => podSpecOf(d).containers.map((c: any) => c.name);
const container = (d: any, name: string) => podSpecOf(d).containers.find((c: any) => c.name === name);
/** The fields of a container the tests set (upstream's defaulting adds imagePullPolicy and friends). */
const brief = (c: any) => Object.fromEntries(["name", "image", "args", "env", "ports"].filter((k) => c?.[k] !== undefined).map((k) => [k, c[k]]));
const briefs = (d: any) => podSpecOf(d).containers.map(brief);

/** A request that must fail and write nothing: the object's resourceVersion and the list's stay. */
async function expectNoWrite(path: string, collection: string, before: any, listBefore: string, what: string) {
  const after = await get(path);
  if (after.metadata.resourceVersion !== before.metadata.resourceVersion) {
    throw new Error(`${what}: the object was written (resourceVersion ${before.metadata.resourceVersion} -> ${after.metadata.resourceVersion})`);
  }
  expect(after).toEqual(before);
  expect(await listRV(collection)).toBe(listBefore);
}

describe("JSON merge patch (RFC 7386)", () => {
  test("merges maps, replaces scalars and lists, and null deletes a key", async () => {
    const cm = await createCM("merge-basic", { a: "1", b: "2", c: "3" }, { labels: { keep: "yes", drop: "yes" } });
    const r = await patch(`${CM}/merge-basic`, MERGE, { metadata: { labels: { drop: null, added: "new" } }, data: { a: "10", b: null, d: "4" } });
    expectCode(r, 200, "merge patch");
    expect(r.body.data).toEqual({ a: "10", c: "3", d: "4" });
    expect(r.body.metadata.labels).toEqual({ keep: "yes", added: "new" });
    expect(r.body.metadata.uid).toBe(cm.metadata.uid);
    expect(r.body.metadata.resourceVersion).not.toBe(cm.metadata.resourceVersion);
    const g = await get(`${CM}/merge-basic`);
    expect(g.data).toEqual({ a: "10", c: "3", d: "4" });
    expect(g.metadata.labels).toEqual({ keep: "yes", added: "new" });
    expect(g.metadata.resourceVersion).toBe(r.body.metadata.resourceVersion);

    // null for a whole map removes it; null for an absent key is a no-op.
    const r2 = await patch(`${CM}/merge-basic`, MERGE, { metadata: { labels: null }, data: { absent: null } });
    expectCode(r2, 200, "merge patch removing labels");
    expect(r2.body.metadata.labels).toBeUndefined();
    expect(r2.body.data).toEqual({ a: "10", c: "3", d: "4" });
  });

  test("a list is replaced whole: merge patch knows no merge keys", async () => {
    await createDeployment("merge-list");
    const r = await patch(`${DEP}/merge-list`, MERGE, { spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.21" }] } } } });
    expectCode(r, 200, "merge patch of containers");
    expect(briefs(r.body)).toEqual([{ name: "web", image: "nginx:1.21" }]);
    // The untouched parts of the spec stay.
    expect(podSpecOf(r.body).volumes).toEqual([{ name: "data", emptyDir: {} }]);
    expect(r.body.spec.replicas).toBe(1);
    expect(r.body.metadata.generation).toBe(2);
  });

  test("a patch that changes nothing writes nothing (resourceVersion unchanged)", async () => {
    const cm = await createCM("merge-noop", { a: "1" });
    const before = await listRV(CM);
    const r = await patch(`${CM}/merge-noop`, MERGE, { data: { a: "1", gone: null } });
    expectCode(r, 200, "no-op merge patch");
    expect(r.body.metadata.resourceVersion).toBe(cm.metadata.resourceVersion);
    expect(await listRV(CM)).toBe(before);
  });

  test("Content-Type parameters are ignored; a missing object is 404", async () => {
    await createCM("merge-charset", { a: "1" });
    const r = await patch(`${CM}/merge-charset`, `${MERGE}; charset=utf-8`, { data: { a: "2" } });
    expectCode(r, 200, "merge patch with charset");
    expect(r.body.data).toEqual({ a: "2" });
    const missing = await patch(`${CM}/no-such-cm`, MERGE, { data: { a: "2" } });
    const st = expectStatus(missing, 404, "NotFound", "merge patch of a missing object");
    expect(st.details).toMatchObject({ name: "no-such-cm", kind: "configmaps" });
  });
});

describe("JSON patch (RFC 6902)", () => {
  test("add, replace, remove, copy, move and test in one request; ~1 escapes a slash", async () => {
    await createCM("jp-ops", { a: "1", b: "2", c: "3" }, { labels: { "app.kubernetes.io/name": "old" } });
    const r = await patch(`${CM}/jp-ops`, JSONP, [
      { op: "test", path: "/data/a", value: "1" },
      { op: "replace", path: "/data/a", value: "10" },
      { op: "add", path: "/data/d", value: "4" },
      { op: "remove", path: "/data/b" },
      { op: "copy", from: "/data/c", path: "/data/c2" },
      { op: "move", from: "/data/d", path: "/data/e" },
      { op: "replace", path: "/metadata/labels/app.kubernetes.io~1name", value: "new" },
      { op: "add", path: "/metadata/annotations", value: { note: "x" } },
    ]);
    expectCode(r, 200, "json patch");
    expect(r.body.data).toEqual({ a: "10", c: "3", c2: "3", e: "4" });
    expect(r.body.metadata.labels).toEqual({ "app.kubernetes.io/name": "new" });
    expect(r.body.metadata.annotations).toEqual({ note: "x" });
    expect((await get(`${CM}/jp-ops`)).data).toEqual({ a: "10", c: "3", c2: "3", e: "4" });
  });

  test("list items by index: add at a position, append with -, remove", async () => {
    await createDeployment("jp-list");
    const r = await patch(`${DEP}/jp-list`, JSONP, [
      { op: "add", path: "/spec/template/spec/containers/0/env/1", value: { name: "MID", value: "m" } },
      { op: "add", path: "/spec/template/spec/containers/0/env/-", value: { name: "LAST", value: "l" } },
      { op: "remove", path: "/spec/template/spec/containers/1" },
    ]);
    expectCode(r, 200, "json patch on lists");
    expect(containerNames(r.body)).toEqual(["web"]);
    expect(container(r.body, "web").env.map((e: any) => e.name)).toEqual(["X", "MID", "Y", "LAST"]);
  });

  test("a failing test op is 422 and nothing is written, not even the operations before it", async () => {
    const cm = await createCM("jp-test", { a: "1", b: "2" });
    const lrv = await listRV(CM);
    const r = await patch(`${CM}/jp-test`, JSONP, [
      { op: "replace", path: "/data/b", value: "changed" },
      { op: "test", path: "/data/a", value: "not-1" },
      { op: "add", path: "/data/c", value: "3" },
    ]);
    expectStatus(r, 422, "Invalid", "json patch with a failing test");
    await expectNoWrite(`${CM}/jp-test`, CM, cm, lrv, "failed json patch");
  });

  test("removing or replacing a missing path is 422 and writes nothing", async () => {
    const cm = await createCM("jp-missing", { a: "1" });
    const lrv = await listRV(CM);
    for (const op of [{ op: "remove", path: "/data/nope" }, { op: "replace", path: "/data/nope", value: "x" }, { op: "add", path: "/no/such/parent", value: 1 }]) {
      const r = await patch(`${CM}/jp-missing`, JSONP, [{ op: "add", path: "/data/b", value: "2" }, op]);
      expectStatus(r, 422, "Invalid", `json patch ${JSON.stringify(op)}`);
    }
    await expectNoWrite(`${CM}/jp-missing`, CM, cm, lrv, "failed json patches");
  });

  test("a JSON patch that is not a list of operations is 400 (upstream: jsonpatch.DecodePatch fails)", async () => {
    const cm = await createCM("jp-shape", { a: "1" });
    const lrv = await listRV(CM);
    const r = await patch(`${CM}/jp-shape`, JSONP, { op: "add", path: "/data/b", value: "2" });
    expectStatus(r, 400, "BadRequest", "json patch that is an object");
    await expectNoWrite(`${CM}/jp-shape`, CM, cm, lrv, "malformed json patch");
  });
});

describe("strategic merge patch on a Deployment", () => {
  test("containers merge by name, env by name; the other container is untouched", async () => {
    await createDeployment("smp-merge");
    const r = await patch(`${DEP}/smp-merge`, SMP, {
      spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.21", env: [{ name: "X", value: "10" }, { name: "Z", value: "3" }] }] } } },
    });
    expectCode(r, 200, "strategic patch of one container");
    expect(containerNames(r.body)).toEqual(["web", "sidecar"]);
    const web = container(r.body, "web");
    expect(web.image).toBe("nginx:1.21");
    // Upstream's order: patch items in patch order, server-only items after the last patch item that
    // precedes them in the original list (normalizeElementOrder/mergeSortedSlice).
    expect(web.env).toEqual([{ name: "X", value: "10" }, { name: "Z", value: "3" }, { name: "Y", value: "2" }]);
    expect(web.ports).toEqual([{ containerPort: 80, protocol: "TCP" }]);
    expect(brief(container(r.body, "sidecar"))).toEqual(sidecar());

    // A new name is appended; a list without a merge key (args) is replaced whole.
    const r2 = await patch(`${DEP}/smp-merge`, SMP, {
      spec: { template: { spec: { containers: [{ name: "sidecar", args: ["sleep", "60"] }, { name: "extra", image: "redis:6" }] } } },
    });
    expectCode(r2, 200, "strategic patch adding a container");
    expect(containerNames(r2.body)).toEqual(["web", "sidecar", "extra"]);
    expect(brief(container(r2.body, "sidecar"))).toEqual({ ...sidecar(), args: ["sleep", "60"] });
    expect(brief(container(r2.body, "extra"))).toEqual({ name: "extra", image: "redis:6" });
    expect(briefs(await get(`${DEP}/smp-merge`))).toEqual(briefs(r2.body));
  });

  test("$patch: delete removes a container and an env entry by name; null deletes a field", async () => {
    await createDeployment("smp-delete");
    const r = await patch(`${DEP}/smp-delete`, SMP, {
      spec: {
        template: {
          spec: {
            containers: [
              { name: "sidecar", $patch: "delete" },
              { name: "web", env: [{ name: "Y", $patch: "delete" }], ports: null },
            ],
          },
        },
      },
    });
    expectCode(r, 200, "strategic delete");
    expect(containerNames(r.body)).toEqual(["web"]);
    expect(briefs(r.body)).toEqual([{ name: "web", image: "nginx:1.20", env: [{ name: "X", value: "1" }] }]);
  });

  test("$patch: replace replaces a list and a map", async () => {
    await createDeployment("smp-replace");
    const r = await patch(`${DEP}/smp-replace`, SMP, {
      metadata: { labels: { only: "this", $patch: "replace" } },
      spec: { template: { spec: { containers: [{ name: "solo", image: "redis:6" }, { $patch: "replace" }] } } },
    });
    expectCode(r, 200, "strategic replace");
    expect(r.body.metadata.labels).toEqual({ only: "this" });
    expect(briefs(r.body)).toEqual([{ name: "solo", image: "redis:6" }]);
  });

  test("$setElementOrder orders the list; items only the server has keep their place", async () => {
    await createDeployment("smp-order");
    // What kubectl apply sends: the full order, and only the changed item.
    const r = await patch(`${DEP}/smp-order`, SMP, {
      spec: {
        template: {
          spec: {
            "$setElementOrder/containers": [{ name: "sidecar" }, { name: "web" }],
            containers: [{ name: "web", image: "nginx:1.21", "$setElementOrder/env": [{ name: "Y" }, { name: "X" }] }],
          },
        },
      },
    });
    expectCode(r, 200, "strategic patch with $setElementOrder");
    expect(containerNames(r.body)).toEqual(["sidecar", "web"]);
    expect(container(r.body, "web").image).toBe("nginx:1.21");
    expect(container(r.body, "web").env).toEqual([{ name: "Y", value: "2" }, { name: "X", value: "1" }]);
  });

  test("$retainKeys clears the keys it does not list (strategy, volume source)", async () => {
    const d = await createDeployment("smp-retain", { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    expect(d.spec.strategy.rollingUpdate).toBeDefined();
    const r = await patch(`${DEP}/smp-retain`, SMP, {
      spec: {
        strategy: { $retainKeys: ["type"], type: "Recreate" },
        template: { spec: { volumes: [{ name: "data", $retainKeys: ["name", "hostPath"], hostPath: { path: "/srv" } }] } },
      },
    });
    expectCode(r, 200, "strategic patch with $retainKeys");
    expect(r.body.spec.strategy).toEqual({ type: "Recreate" });
    expect(podSpecOf(r.body).volumes).toEqual([{ name: "data", hostPath: { path: "/srv", type: "" } }]); // type: upstream's default
  });

  test("$deleteFromPrimitiveList removes values from a merged list of scalars (finalizers)", async () => {
    const d = await createDeployment("smp-primitive");
    const r1 = await patch(`${DEP}/smp-primitive`, SMP, { metadata: { finalizers: ["example.com/a", "example.com/b"] } });
    expectCode(r1, 200, "add finalizers");
    expect(r1.body.metadata.finalizers).toEqual(["example.com/a", "example.com/b"]);
    // finalizers merge (patchStrategy merge): a new value joins the set; as upstream orders a merged
    // list, the patch's items come before server-only items not anchored to them.
    const r2 = await patch(`${DEP}/smp-primitive`, SMP, { metadata: { finalizers: ["example.com/c", "example.com/a"] } });
    expectCode(r2, 200, "merge finalizers");
    expect(r2.body.metadata.finalizers).toEqual(["example.com/c", "example.com/a", "example.com/b"]);
    const r3 = await patch(`${DEP}/smp-primitive`, SMP, { metadata: { "$deleteFromPrimitiveList/finalizers": ["example.com/a", "example.com/c"] } });
    expectCode(r3, 200, "$deleteFromPrimitiveList");
    expect(r3.body.metadata.finalizers).toEqual(["example.com/b"]);
    const r4 = await patch(`${DEP}/smp-primitive`, SMP, { metadata: { finalizers: null } });
    expectCode(r4, 200, "clear finalizers");
    expect(r4.body.metadata.finalizers).toBeUndefined();
    expect(r4.body.metadata.uid).toBe(d.metadata.uid);
  });

  test("a patch whose result fails validation is 422 and writes nothing", async () => {
    const d = await createDeployment("smp-invalid");
    const lrv = await listRV(DEP);
    const r = await patch(`${DEP}/smp-invalid`, SMP, { spec: { selector: null, replicas: 5 } });
    expectStatus(r, 422, "Invalid", "strategic patch removing the selector");
    expect(JSON.stringify(r.body.details?.causes ?? [])).toContain("spec.selector");
    await expectNoWrite(`${DEP}/smp-invalid`, DEP, d, lrv, "invalid strategic patch");
  });

  test("malformed directives fail and write nothing", async () => {
    const d = await createDeployment("smp-bad");
    const lrv = await listRV(DEP);
    const bad: [string, unknown][] = [
      ["unknown $patch value", { spec: { template: { spec: { containers: [{ name: "web", $patch: "bogus" }] } } } }],
      ["$setElementOrder disagreeing with the patch order", {
        spec: { template: { spec: { "$setElementOrder/containers": [{ name: "web" }, { name: "sidecar" }], containers: [{ name: "sidecar", image: "a" }, { name: "web", image: "b" }] } } },
      }],
      ["$retainKeys not listing a key the patch sets", { spec: { strategy: { $retainKeys: ["type"], type: "Recreate", rollingUpdate: { maxSurge: 1 } } } }],
      ["a container without its merge key", { spec: { template: { spec: { containers: [{ image: "nameless" }] } } } }],
    ];
    for (const [what, body] of bad) {
      const r = await patch(`${DEP}/smp-bad`, SMP, body);
      if (r.status < 400 || r.status >= 500) throw new Error(`${what}: expected a 4xx failure, got ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
      expect(r.body.kind).toBe("Status");
    }
    await expectNoWrite(`${DEP}/smp-bad`, DEP, d, lrv, "malformed strategic patches");
  });
});

describe("strategic merge patch on a Service", () => {
  test("ports merge by port; $patch: delete removes one; a merge patch replaces them all", async () => {
    const svc = await createService("smp-svc");
    expect(svc.spec.ports.map((p: any) => p.port)).toEqual([80, 443]);
    const r = await patch(`${SVC}/smp-svc`, SMP, { spec: { ports: [{ port: 443, targetPort: 9443 }, { name: "metrics", port: 9090, targetPort: 9090, protocol: "TCP" }] } });
    expectCode(r, 200, "strategic patch of service ports");
    expect(r.body.spec.ports).toEqual([
      { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
      { name: "https", port: 443, targetPort: 9443, protocol: "TCP" },
      { name: "metrics", port: 9090, targetPort: 9090, protocol: "TCP" },
    ]);
    // The allocated clusterIP survives patches that do not name it.
    expect(r.body.spec.clusterIP).toBe(svc.spec.clusterIP);

    const r2 = await patch(`${SVC}/smp-svc`, SMP, { spec: { ports: [{ port: 80, $patch: "delete" }] } });
    expectCode(r2, 200, "strategic delete of a port");
    expect(r2.body.spec.ports.map((p: any) => p.name)).toEqual(["https", "metrics"]);

    const r3 = await patch(`${SVC}/smp-svc`, MERGE, { spec: { ports: [{ name: "only", port: 8000, targetPort: 8000, protocol: "TCP" }] } });
    expectCode(r3, 200, "merge patch of service ports");
    expect(r3.body.spec.ports).toEqual([{ name: "only", port: 8000, targetPort: 8000, protocol: "TCP" }]);
    expect((await get(`${SVC}/smp-svc`)).spec.ports).toEqual(r3.body.spec.ports);
  });
});

describe("unsupported patch types", () => {
  test("any other Content-Type is 415 UnsupportedMediaType listing the patch types, and nothing is written", async () => {
    const cm = await createCM("media", { a: "1" });
    const lrv = await listRV(CM);
    const messages: string[] = [];
    for (const type of ["application/json", "application/yaml", "text/plain", "application/x-www-form-urlencoded", "application/merge-patch+yaml"]) {
      const r = await patch(`${CM}/media`, type, { data: { a: "2" } });
      messages.push(expectStatus(r, 415, "UnsupportedMediaType", `PATCH with Content-Type ${type}`).message);
    }
    // No Content-Type at all.
    const none = await s.req(`${CM}/media`, { method: "PATCH", body: JSON.stringify({ data: { a: "2" } }) });
    expect(none.status).toBe(415);
    await none.text();
    await expectNoWrite(`${CM}/media`, CM, cm, lrv, "PATCH with an unsupported type");
    // Upstream's PATCH handler names the patch types it takes (negotiation.NewUnsupportedMediaTypeError(patchTypes)).
    for (const m of messages) expect(m).toBe(`the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES}`);
  });
});

describe("a failed patch never writes", () => {
  test("force on a non-apply patch is refused (upstream: 422 PatchOptions invalid) and writes nothing", async () => {
    const cm = await createCM("force-nonapply", { a: "1" });
    const lrv = await listRV(CM);
    const r = await patch(`${CM}/force-nonapply`, MERGE, { data: { a: "2" } }, "?force=true");
    const st = expectStatus(r, 422, "Invalid", "merge patch with force=true");
    expect(st.message).toContain("force: Forbidden: may not be specified for non-apply patch");
    await expectNoWrite(`${CM}/force-nonapply`, CM, cm, lrv, "non-apply patch with force");
  });

  test("a merge patch whose result is invalid is 422 and writes nothing", async () => {
    const cm = await createCM("invalid-result", { a: "1" });
    const lrv = await listRV(CM);
    const r = await patch(`${CM}/invalid-result`, MERGE, { metadata: { labels: { "bad label!": "x" } }, data: { a: "2" } });
    expectStatus(r, 422, "Invalid", "merge patch adding an invalid label");
    await expectNoWrite(`${CM}/invalid-result`, CM, cm, lrv, "invalid merge patch");
  });
});

describe("status subresource", () => {
  test("a patch to /status changes only status; a patch to the object ignores status", async () => {
    const d = await createDeployment("status-patch");
    expect(d.metadata.generation).toBe(1);
    const r = await patch(`${DEP}/status-patch/status`, MERGE, {
      metadata: { labels: { sneaky: "yes" } },
      spec: { replicas: 7 },
      status: { replicas: 2, readyReplicas: 1, observedGeneration: 1 },
    });
    expectCode(r, 200, "merge patch of /status");
    expect(r.body.status).toMatchObject({ replicas: 2, readyReplicas: 1, observedGeneration: 1 });
    expect(r.body.spec.replicas).toBe(1);
    expect(r.body.metadata.generation).toBe(1);
    const g = await get(`${DEP}/status-patch`);
    expect(g.spec).toEqual(d.spec);
    expect(g.status).toMatchObject({ replicas: 2, readyReplicas: 1, observedGeneration: 1 });
    expect(g.metadata.resourceVersion).toBe(r.body.metadata.resourceVersion);

    // Strategic merge on status: conditions merge by type.
    const c1 = await patch(`${DEP}/status-patch/status`, SMP, { status: { conditions: [{ type: "Available", status: "True", reason: "MinimumReplicasAvailable" }] } });
    expectCode(c1, 200, "strategic patch of status conditions");
    const c2 = await patch(`${DEP}/status-patch/status`, SMP, { status: { conditions: [{ type: "Progressing", status: "True" }, { type: "Available", status: "False" }] } });
    expectCode(c2, 200, "second strategic patch of status conditions");
    expect(c2.body.status.conditions).toEqual([
      { type: "Progressing", status: "True" },
      { type: "Available", status: "False", reason: "MinimumReplicasAvailable" },
    ]);

    // JSON patch on /status too.
    const j = await patch(`${DEP}/status-patch/status`, JSONP, [{ op: "replace", path: "/status/replicas", value: 3 }, { op: "replace", path: "/spec/replicas", value: 9 }]);
    expectCode(j, 200, "json patch of /status");
    expect(j.body.status.replicas).toBe(3);
    expect(j.body.spec.replicas).toBe(1);

    // The main resource: spec changes (generation moves), status is ignored.
    const m = await patch(`${DEP}/status-patch`, MERGE, { spec: { replicas: 4 }, status: { replicas: 100 } });
    expectCode(m, 200, "merge patch of the deployment");
    expect(m.body.spec.replicas).toBe(4);
    expect(m.body.status.replicas).toBe(3);
    expect(m.body.metadata.generation).toBe(2);
  });
});

describe("optimistic concurrency", () => {
  test("a patch carrying a stale metadata.resourceVersion is 409 Conflict and writes nothing; the current one passes", async () => {
    const first = await createCM("stale", { a: "1" });
    const second = await patch(`${CM}/stale`, MERGE, { data: { a: "2" } });
    expectCode(second, 200, "first merge patch");
    const lrv = await listRV(CM);
    const stale = first.metadata.resourceVersion;
    const bodies: [string, unknown][] = [
      [MERGE, { metadata: { resourceVersion: stale }, data: { a: "3" } }],
      [SMP, { metadata: { resourceVersion: stale }, data: { a: "3" } }],
      [JSONP, [{ op: "replace", path: "/metadata/resourceVersion", value: stale }, { op: "replace", path: "/data/a", value: "3" }]],
    ];
    for (const [type, body] of bodies) {
      const r = await patch(`${CM}/stale`, type, body);
      const st = expectStatus(r, 409, "Conflict", `${type} with a stale resourceVersion`);
      expect(st.message).toBe('Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again');
      expect(st.details).toMatchObject({ name: "stale", kind: "configmaps" });
    }
    await expectNoWrite(`${CM}/stale`, CM, second.body, lrv, "stale patches");
    const ok = await patch(`${CM}/stale`, MERGE, { metadata: { resourceVersion: second.body.metadata.resourceVersion }, data: { a: "3" } });
    expectCode(ok, 200, "merge patch with the current resourceVersion");
    expect(ok.body.data).toEqual({ a: "3" });
  });
});
