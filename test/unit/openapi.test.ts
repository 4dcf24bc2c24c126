import { describe, expect, test } from "bun:test";
import { openapiV3 } from "../../pkg/openapi/document.ts";
import { handleOpenAPI } from "../../pkg/openapi/http.ts";
import { schemaName } from "../../pkg/openapi/schemas/index.ts";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import { ALL_VERBS, type ResourceDef } from "../../pkg/registry/types.ts";

type J = Record<string, any>;
const api = openapiV3(BUILTIN);
const gvPath = (d: { group: string; version: string }) => (d.group ? `apis/${d.group}/${d.version}` : `api/${d.version}`);
const docOf = (path: string): J => JSON.parse(api.doc(path)!.body);
const sameGVK = (a: J | undefined, d: ResourceDef, kind = d.kind) => !!a && a.group === d.group && a.version === d.version && a.kind === kind;
const METHODS = ["get", "put", "post", "delete", "patch"];

describe("root", () => {
  const root = api.root() as { paths: Record<string, { serverRelativeURL: string }> };
  test("lists every group version, group and the two discovery roots", () => {
    for (const d of BUILTIN) {
      expect(root.paths[gvPath(d)]).toBeDefined();
      if (d.group) expect(root.paths[`apis/${d.group}`]).toBeDefined();
    }
    expect(root.paths.api).toBeDefined();
    expect(root.paths.apis).toBeDefined();
  });
  test("serverRelativeURL carries the document's hash", () => {
    for (const [k, v] of Object.entries(root.paths)) {
      const d = api.doc(k)!;
      expect(d.etag).toMatch(/^[0-9A-F]{128}$/);
      expect(v.serverRelativeURL).toBe(`/openapi/v3/${k}?hash=${d.etag}`);
    }
  });
  test("hashes are stable across builds", () => {
    const again = openapiV3(BUILTIN);
    expect(JSON.stringify(again.root())).toBe(JSON.stringify(root));
  });
});

describe("group version documents", () => {
  for (const d of BUILTIN) {
    const doc = docOf(gvPath(d));
    const id = `${gvPath(d)} ${d.kind}`;
    // the review kinds are only created: no list, no patch
    const verbs = d.verbs ?? ["list", "patch"];
    test(`${id}: schema and list carry the GVK`, () => {
      expect(doc.openapi).toBe("3.0.0");
      const name = schemaName(d.group, d.version, d.kind);
      const s = doc.components.schemas[name];
      expect(s["x-kubernetes-group-version-kind"]).toEqual([{ group: d.group, kind: d.kind, version: d.version }]);
      expect(Object.keys(s.properties)).toEqual(expect.arrayContaining(["apiVersion", "kind", "metadata"]));
      const list = doc.components.schemas[`${name}List`];
      if (!verbs.includes("list")) return expect(list).toBeUndefined();
      expect(list["x-kubernetes-group-version-kind"]).toEqual([{ group: d.group, kind: `${d.kind}List`, version: d.version }]);
    });
    if (verbs.includes("patch")) test(`${id}: PATCH operations carry the GVK, fieldValidation and the patch types`, () => {
      const patches = Object.values(doc.paths).map((p: any) => p.patch).filter((op) => op && sameGVK(op["x-kubernetes-group-version-kind"], d));
      if (d.verbs && !d.verbs.includes("patch")) return expect(patches).toEqual([]); // read-only (componentstatuses)
      expect(patches.length).toBeGreaterThan(0);
      for (const op of patches) {
        const names = op.parameters.filter((p: J) => p.in === "query").map((p: J) => p.name);
        expect(names).toEqual(expect.arrayContaining(["fieldValidation", "fieldManager", "dryRun", "force"]));
        expect(Object.keys(op.requestBody.content).sort()).toEqual([
          "application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json",
        ]);
      }
    });
    test(`${id}: explain finds the GVK on one of its four paths`, () => {
      const prefix = d.group ? `/apis/${d.group}` : "/api";
      const candidates = [`${prefix}/${d.version}/${d.plural}`, `${prefix}/${d.version}/namespaces/{namespace}/${d.plural}`];
      const found = candidates.flatMap((p) => [p, `${p}/{name}`]).some((p) => METHODS.some((m) => sameGVK(doc.paths[p]?.[m]?.["x-kubernetes-group-version-kind"], d)));
      expect(found).toBe(true);
      if (d.namespaced && verbs.includes("list")) expect(doc.paths[`${prefix}/${d.version}/${d.plural}`]?.get?.operationId).toEndWith("ForAllNamespaces");
    });
  }

  test("every $ref resolves inside its document, and operation ids are unique", () => {
    for (const path of Object.keys((api.root() as J).paths)) {
      const doc = docOf(path);
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) return v.forEach(walk);
        if (!v || typeof v !== "object") return;
        for (const [k, x] of Object.entries(v)) {
          if (k === "$ref") {
            expect(x).toStartWith("#/components/schemas/");
            expect(doc.components.schemas[(x as string).slice(21)]).toBeDefined();
          } else walk(x);
        }
      };
      walk(doc);
      const ids = Object.values(doc.paths).flatMap((p: any) => METHODS.map((m) => p[m]?.operationId).filter(Boolean));
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  test("upstream operation ids and actions", () => {
    const core = docOf("api/v1");
    const pods = core.paths["/api/v1/namespaces/{namespace}/pods/{name}"];
    expect(pods.patch.operationId).toBe("patchCoreV1NamespacedPod");
    expect(pods.patch["x-kubernetes-action"]).toBe("patch");
    expect(core.paths["/api/v1/namespaces/{namespace}/pods"].post["x-kubernetes-action"]).toBe("post");
    expect(core.paths["/api/v1/namespaces/{namespace}/pods/{name}/status"].get.operationId).toBe("readCoreV1NamespacedPodStatus");
    expect(core.paths["/api/v1/namespaces/{name}/finalize"].put.operationId).toBe("replaceCoreV1NamespaceFinalize");
    const rbac = docOf("apis/rbac.authorization.k8s.io/v1");
    expect(rbac.paths["/apis/rbac.authorization.k8s.io/v1/clusterroles"].delete.operationId).toBe("deleteRbacAuthorizationV1CollectionClusterRole");
  });

  test("strategic-merge metadata is reachable the way kubectl walks it", () => {
    const doc = docOf("apis/apps/v1");
    const schemas = doc.components.schemas;
    const resolve = (s: J): J => {
      const r = s.allOf ? s.allOf[0] : s;
      return r.$ref ? schemas[r.$ref.slice(21)] : r;
    };
    let s: J = schemas["io.k8s.api.apps.v1.Deployment"];
    for (const k of ["spec", "template", "spec"]) s = resolve(s.properties[k]);
    const containers = s.properties.containers;
    expect(containers["x-kubernetes-patch-merge-key"]).toBe("name");
    expect(containers["x-kubernetes-patch-strategy"]).toBe("merge");
    expect(s.properties.volumes["x-kubernetes-patch-strategy"]).toBe("merge,retainKeys");
    const container = resolve(containers.items);
    expect(container.properties.env["x-kubernetes-patch-merge-key"]).toBe("name");
    expect(container.properties.ports["x-kubernetes-list-map-keys"]).toEqual(["containerPort", "protocol"]);
    expect(container.properties.volumeMounts["x-kubernetes-patch-merge-key"]).toBe("mountPath");
    const svc = docOf("api/v1").components.schemas["io.k8s.api.core.v1.ServiceSpec"];
    expect(svc.properties.ports["x-kubernetes-patch-merge-key"]).toBe("port");
  });

  test("a kind without a hand-written schema gets a generic one", () => {
    const widget: ResourceDef = { group: "example.com", version: "v1", kind: "Widget", plural: "widgets", singular: "widget", namespaced: true, verbs: ALL_VERBS };
    const doc = JSON.parse(openapiV3([widget]).doc("apis/example.com/v1")!.body);
    const s = doc.components.schemas["com.example.v1.Widget"];
    expect(Object.keys(s.properties)).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
    expect(s["x-kubernetes-group-version-kind"]).toEqual([{ group: "example.com", kind: "Widget", version: "v1" }]);
  });
});

describe("HTTP", () => {
  const get = (path: string, headers: Record<string, string> = {}) => handleOpenAPI(new URL(`https://h${path}`), new Headers(headers));

  test("root with ETag and 304", async () => {
    const r = get("/openapi/v3")!;
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
    const etag = r.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9A-F]+"$/);
    expect(Object.keys(((await r.json()) as J).paths)).toContain("apis/apps/v1");
    expect(get("/openapi/v3", { "if-none-match": etag })!.status).toBe(304);
  });

  test("group version document: hash, ETag, caching, 304, redirect", async () => {
    const { etag } = api.doc("apis/apps/v1")!;
    const r = get(`/openapi/v3/apis/apps/v1?hash=${etag}&timeout=32s`, { accept: "application/json" })!;
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe(`"${etag}"`);
    expect(r.headers.get("cache-control")).toBe("public, immutable");
    expect(((await r.json()) as J).openapi).toBe("3.0.0");
    const plain = get("/openapi/v3/apis/apps/v1")!;
    expect(plain.headers.get("cache-control")).toBe("no-cache, private");
    const r304 = get(`/openapi/v3/apis/apps/v1?hash=${etag}`, { "if-none-match": `"${etag}"` })!;
    expect(r304.status).toBe(304);
    expect(await r304.text()).toBe("");
    const moved = get("/openapi/v3/apis/apps/v1?hash=OLD")!;
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe(`/openapi/v3/apis/apps/v1?hash=${etag}`);
  });

  test("not found, not acceptable, and other paths", async () => {
    const missing = get("/openapi/v3/apis/nope/v1")!;
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server could not find the requested resource", reason: "NotFound", details: {}, code: 404,
    });
    expect(get("/openapi/v2", { accept: "text/html" })!.status).toBe(406);
    expect(get("/openapi/v3/api/v1", { accept: "application/com.github.proto-openapi.spec.v3@v1.0+protobuf" })!.status).toBe(406);
    expect(get("/api/v1")).toBeUndefined();
  });
});
