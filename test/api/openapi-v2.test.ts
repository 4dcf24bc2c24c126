// /openapi/v2 as upstream v1.21 serves it: one Swagger 2.0 document (JSON, or gnostic's protobuf for
// kubectl), with every served kind's definition, the same schemas as the v3 documents, ETag and 304.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import protobuf from "protobufjs";
import YAML from "yaml";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import { ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { apiVersionOf, gvPath } from "./fixtures.ts";

setDefaultTimeout(30_000);

const PB = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
const PB_DOTTED = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
type J = Record<string, any>;

let s: TestServer;
let doc: J;
let jsonEtag: string;

async function get(path: string, headers: Record<string, string> = {}, init: J = {}) {
  const r = await s.req(path, { headers, ...init });
  return { status: r.status, headers: r.headers, bytes: new Uint8Array(await r.arrayBuffer()) as Uint8Array<ArrayBuffer> };
}

beforeAll(async () => {
  s = await startServer();
  const r = await get("/openapi/v2");
  expect(r.status).toBe(200);
  jsonEtag = r.headers.get("etag")!;
  doc = JSON.parse(new TextDecoder().decode(r.bytes));
}, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

/** Calls `visit` on every object under `v`, with its path. */
function walk(v: unknown, visit: (x: J, path: string) => void, path = ""): void {
  if (Array.isArray(v)) return v.forEach((x, i) => walk(x, visit, `${path}[${i}]`));
  if (!v || typeof v !== "object") return;
  visit(v as J, path);
  for (const [k, x] of Object.entries(v)) walk(x, visit, `${path}/${k}`);
}

describe("the JSON document", () => {
  test("is Swagger 2.0 with upstream's envelope", async () => {
    const version = (await s.call("GET", "/version")).body.gitVersion.split("+")[0];
    expect(doc.swagger).toBe("2.0");
    expect(doc.info).toEqual({ title: "Kubernetes", version });
    expect(doc.securityDefinitions.BearerToken).toMatchObject({ type: "apiKey", name: "authorization", in: "header" });
    expect(doc.security).toEqual([{ BearerToken: [] }]);
    expect(Object.keys(doc)).not.toContain("openapi");
    expect(Object.keys(doc)).not.toContain("components");
  });

  test("every reference points into definitions and resolves; no v3-only keyword is left", () => {
    const problems: string[] = [];
    walk(doc, (x, path) => {
      if (typeof x.$ref === "string") {
        if (!x.$ref.startsWith("#/definitions/")) problems.push(`${path}: ${x.$ref}`);
        else if (!doc.definitions[x.$ref.slice("#/definitions/".length)]) problems.push(`${path}: ${x.$ref} does not resolve`);
      }
      for (const k of ["allOf", "oneOf", "anyOf", "nullable", "requestBody", "content", "components"]) if (k in x && !path.endsWith("/properties")) problems.push(`${path}: ${k}`);
    });
    expect(problems).toEqual([]);
  });

  test("every built-in kind and its list have a definition with their group, version and kind", () => {
    for (const d of BUILTIN) {
      // the review kinds are only created: they have no list
      const listed = !d.verbs || d.verbs.includes("list");
      for (const kind of listed ? [d.kind, `${d.kind}List`] : [d.kind]) {
        const defs = Object.entries(doc.definitions as Record<string, J>).filter(([, x]) =>
          x["x-kubernetes-group-version-kind"]?.some((g: J) => g.group === d.group && g.version === d.version && g.kind === kind));
        expect({ kind: `${apiVersionOf(d)} ${kind}`, definitions: defs.length }).toEqual({ kind: `${apiVersionOf(d)} ${kind}`, definitions: 1 });
        expect(defs[0][1].properties.kind).toBeDefined();
      }
    }
  });

  test("operations use v2's parameters, bodies and responses", () => {
    const collection = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments"];
    expect(collection.parameters).toContainEqual(expect.objectContaining({ name: "namespace", in: "path", required: true, type: "string" }));
    const post = collection.post;
    expect(post.operationId).toBe("createAppsV1NamespacedDeployment");
    expect(post["x-kubernetes-action"]).toBe("post");
    expect(post["x-kubernetes-group-version-kind"]).toEqual({ group: "apps", kind: "Deployment", version: "v1" });
    expect(post.schemes).toEqual(["https"]);
    expect(post.parameters[0]).toEqual({ name: "body", in: "body", required: true, schema: { $ref: "#/definitions/io.k8s.api.apps.v1.Deployment" } });
    expect(post.parameters).toContainEqual(expect.objectContaining({ name: "dryRun", in: "query", type: "string" }));
    expect(post.responses["201"].schema).toEqual({ $ref: "#/definitions/io.k8s.api.apps.v1.Deployment" });
    expect(post.responses["401"]).toEqual({ description: "Unauthorized" });
    expect(post.produces).toContain("application/vnd.kubernetes.protobuf");
    const patch = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].patch;
    expect(patch.consumes).toContain("application/strategic-merge-patch+json");
    expect(patch.parameters.map((p: J) => p.name)).toEqual(expect.arrayContaining(["body", "dryRun", "fieldManager", "force"]));
    expect(doc.paths["/api/v1/pods"].get.produces).toContain("application/json;stream=watch");
  });

  test("patch strategies, merge keys and list types are where strategic merge and apply read them", () => {
    const def = (n: string) => doc.definitions[n];
    expect(def("io.k8s.api.apps.v1.DeploymentSpec").properties.strategy).toMatchObject({ $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentStrategy", "x-kubernetes-patch-strategy": "retainKeys" });
    expect(def("io.k8s.api.core.v1.PodSpec").properties.containers).toMatchObject({
      type: "array", items: { $ref: "#/definitions/io.k8s.api.core.v1.Container" }, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge",
    });
    expect(def("io.k8s.api.core.v1.ServiceSpec").properties.ports).toMatchObject({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"] });
    expect(def("io.k8s.apimachinery.pkg.util.intstr.IntOrString")).toMatchObject({ type: "string", format: "int-or-string" });
    expect(def("io.k8s.apimachinery.pkg.api.resource.Quantity").type).toBe("string");
  });

  test("carries the same schemas as the v3 documents", async () => {
    // Property names, types, references and x-kubernetes-* extensions, compared at every level.
    const shape = (x: J | undefined, v3: boolean): unknown => {
      if (!x) return undefined;
      const one = v3 && x.allOf?.length === 1 ? x.allOf[0] : undefined;
      const ref = (one ?? x).$ref?.replace(v3 ? "#/components/schemas/" : "#/definitions/", "");
      return {
        ref, type: v3 && x.oneOf ? "string" : x.type, format: x.format,
        ext: Object.fromEntries(Object.entries(x).filter(([k]) => k.startsWith("x-"))),
        properties: x.properties && Object.fromEntries(Object.entries(x.properties).map(([k, p]) => [k, shape(p as J, v3)])),
        items: shape(x.items, v3), additional: typeof x.additionalProperties === "object" ? shape(x.additionalProperties, v3) : x.additionalProperties,
        required: x.required,
      };
    };
    const index = (await s.call("GET", "/openapi/v3")).body.paths as Record<string, { serverRelativeURL: string }>;
    let compared = 0;
    for (const { serverRelativeURL } of Object.values(index)) {
      const v3 = (await s.call("GET", serverRelativeURL)).body;
      for (const [name, schema] of Object.entries(v3.components.schemas as Record<string, J>)) {
        expect({ name, shape: shape(doc.definitions[name], false) }).toEqual({ name, shape: shape(schema, true) });
        compared++;
      }
      for (const path of Object.keys(v3.paths)) expect(doc.paths[path]).toBeDefined();
    }
    expect(compared).toBeGreaterThan(200);
  });

  test("discovery and the document agree: every served resource's kind is described", async () => {
    const groups = (await s.call("GET", "/apis")).body.groups as J[];
    const gvs = ["/api/v1", ...groups.flatMap((g) => g.versions.map((v: J) => `/apis/${v.groupVersion}`))];
    const described = new Set<string>();
    for (const x of Object.values(doc.definitions) as J[]) for (const g of x["x-kubernetes-group-version-kind"] ?? []) described.add(`${g.group}/${g.version}/${g.kind}`);
    for (const gv of gvs) {
      const { groupVersion, resources } = (await s.call("GET", gv)).body;
      const [group, version] = groupVersion.includes("/") ? groupVersion.split("/") : ["", groupVersion];
      for (const r of resources as J[]) {
        if (r.name.includes("/")) continue;
        expect(`${gv} ${r.name}: ${described.has(`${r.group ?? group}/${r.version ?? version}/${r.kind}`)}`).toBe(`${gv} ${r.name}: true`);
      }
    }
    expect((await s.call("GET", "/")).body.paths).toContain("/openapi/v2");
  });
});

/** gnostic's messages back to the JSON document (the inverse of pkg/openapi/v2proto.ts, by reflection). */
function fromGnostic(type: protobuf.Type, m: J): unknown {
  if (type.name === "Any") return YAML.parse(m.yaml);
  if (type.name === "TypeItem" || type.name === "StringArray") return type.name === "TypeItem" && m.value.length === 1 ? m.value[0] : (m.value ?? []);
  if (type.name === "ItemsItem") return m.schema.length === 1 ? fromGnostic(type.lookupType("Schema"), m.schema[0]) : m.schema.map((x: J) => fromGnostic(type.lookupType("Schema"), x));
  const value = (f: protobuf.Field, v: unknown) => {
    const t = f.resolvedType;
    if (!(t instanceof protobuf.Type)) return v;
    return f.repeated ? (v as J[]).map((x) => fromGnostic(t, x)) : fromGnostic(t, v as J);
  };
  if (type.oneofsArray.length) {
    const f = type.fieldsArray.find((x) => m[x.name] !== undefined)!;
    return value(f, m[f.name]);
  }
  const out: J = {};
  for (const f of type.fieldsArray) {
    const v = m[f.name];
    if (v === undefined) continue;
    const named = f.repeated && f.resolvedType?.name.startsWith("Named");
    if (named) {
      // A map field (`vendor_extension`, `additional_properties`, `path`, `response_code`): name → value;
      // a message that is only a map (plus extensions) is the map itself.
      const valueField = (f.resolvedType as protobuf.Type).fields.value;
      const entries = Object.fromEntries((v as J[]).map((x) => [x.name, value(valueField, x.value)]));
      if (f.name === "vendor_extension" || type.fieldsArray.every((x) => x === f || x.name === "vendor_extension")) Object.assign(out, entries);
      else out[f.name] = entries;
    } else out[f.name === "_ref" ? "$ref" : f.name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())] = value(f, v);
  }
  return out;
}

describe("the protobuf document", () => {
  let type: protobuf.Type;
  let bytes: Uint8Array<ArrayBuffer>;
  beforeAll(async () => {
    type = new protobuf.Root().loadSync(join(ROOT, "proto/openapi/openapi_v2.proto"), { keepCase: true }).resolveAll().lookupType("openapi.v2.Document");
    const r = await get("/openapi/v2", { Accept: PB });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/octet-stream");
    bytes = r.bytes;
  });

  test("decodes with protobufjs back to the JSON document", () => {
    const m = type.toObject(type.decode(bytes), { longs: Number, defaults: false, oneofs: false });
    expect(fromGnostic(type, m)).toEqual(doc);
  });

  test("uses gnostic's field numbers", () => {
    // Document.swagger = 1 (the first bytes), and the numbers kubectl's readers depend on.
    expect(Array.from(bytes.slice(0, 5))).toEqual([0x0a, 3, ...new TextEncoder().encode("2.0")]);
    const num = (t: string, f: string) => type.lookupType(t).fields[f].id;
    expect({
      info: num("Document", "info"), paths: num("Document", "paths"), definitions: num("Document", "definitions"), securityDefinitions: num("Document", "security_definitions"),
      ref: num("Schema", "_ref"), type: num("Schema", "type"), items: num("Schema", "items"), properties: num("Schema", "properties"), schemaExt: num("Schema", "vendor_extension"),
      additionalProperties: num("Schema", "additional_properties"), yaml: num("Any", "yaml"), operationParameters: num("Operation", "parameters"), query: num("NonBodyParameter", "query_parameter_sub_schema"),
    }).toEqual({
      info: 2, paths: 8, definitions: 9, securityDefinitions: 13, ref: 1, type: 22, items: 23, properties: 25, schemaExt: 31, additionalProperties: 21, yaml: 2, operationParameters: 8, query: 3,
    });
  });

  test("the dotted media type later clients send is answered in kind", async () => {
    const r = await get("/openapi/v2", { Accept: `${PB_DOTTED}, application/json` });
    expect(r.headers.get("content-type")).toBe(PB_DOTTED);
    expect(r.bytes).toEqual(bytes);
  });
});

describe("caching and transfer", () => {
  test("ETag per representation, If-None-Match gives 304", async () => {
    const pb = await get("/openapi/v2", { Accept: PB });
    const pbEtag = pb.headers.get("etag")!;
    expect(jsonEtag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(pbEtag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(pbEtag).not.toBe(jsonEtag);
    expect((await get("/openapi/v2")).headers.get("etag")).toBe(jsonEtag);
    for (const [accept, etag] of [["application/json", jsonEtag], [PB, pbEtag]]) {
      const hit = await get("/openapi/v2", { Accept: accept, "If-None-Match": etag });
      expect({ accept, status: hit.status, body: hit.bytes.length, etag: hit.headers.get("etag") }).toEqual({ accept, status: 304, body: 0, etag });
      expect((await get("/openapi/v2", { Accept: accept, "If-None-Match": `W/${etag}` })).status).toBe(304);
      expect((await get("/openapi/v2", { Accept: accept, "If-None-Match": '"OTHER"' })).status).toBe(200);
    }
    // The other representation's ETag does not match.
    expect((await get("/openapi/v2", { Accept: PB, "If-None-Match": jsonEtag })).status).toBe(200);
  });

  test("gzipped for clients that accept it", async () => {
    for (const accept of ["application/json", PB]) {
      const plain = await get("/openapi/v2", { Accept: accept, "Accept-Encoding": "identity" }, { decompress: false });
      expect(plain.headers.get("content-encoding")).toBeNull();
      const gz = await get("/openapi/v2", { Accept: accept, "Accept-Encoding": "gzip" }, { decompress: false });
      expect(gz.headers.get("content-encoding")).toBe("gzip");
      expect(gz.bytes.length).toBeLessThan(plain.bytes.length / 4);
      expect(new Uint8Array(gunzipSync(gz.bytes))).toEqual(plain.bytes);
    }
    const v3 = await get("/openapi/v3/api/v1", { "Accept-Encoding": "gzip" }, { decompress: false });
    expect(v3.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(gunzipSync(v3.bytes).toString()).openapi).toBe("3.0.0");
  });

  test("not gzipped with the APIResponseCompression gate off", async () => {
    const off = await startServer(["--feature-gates=APIResponseCompression=false"]);
    try {
      const r = await off.req("/openapi/v2", { headers: { "Accept-Encoding": "gzip" }, decompress: false } as RequestInit);
      expect(r.headers.get("content-encoding")).toBeNull();
      expect(JSON.parse(await r.text()).swagger).toBe("2.0");
    } finally {
      await off.stop();
    }
  });

  test("an Accept it cannot answer is 406", async () => {
    const r = await s.call("GET", "/openapi/v2", undefined, { Accept: "application/yaml" });
    expect(r.status).toBe(406);
    expect(r.body).toMatchObject({ kind: "Status", reason: "NotAcceptable", code: 406 });
  });
});

test("resource paths exist for every built-in kind's group version", () => {
  for (const d of BUILTIN) expect(Object.keys(doc.paths).some((p) => p.startsWith(`${gvPath(d)}/`) && p.endsWith(`/${d.plural}`))).toBe(true);
});
