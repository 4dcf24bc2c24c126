// The OpenAPI source of the served types (paths and one schema table, which v2.ts renders too), and
// OpenAPI v3: the root index (/openapi/v3) and one document per group version
// (/openapi/v3/apis/apps/v1), built lazily once, each with a content hash used as ETag.
import { createHash } from "node:crypto";
import { type ResourceDef, listKindOf } from "../registry/types.ts";
import { VERSION_INFO } from "../version.ts";
import { type Json, getOp, groupId, groupTag, gvId, resourcePaths, tagOf } from "./operations.ts";
import { REF_PREFIX, SCHEMAS, type Schema, type Table, schemaName } from "./schemas/index.ts";

/** An encoded document: its bytes (or text), their hash as ETag, and their gzip once asked for. */
export interface OpenAPIDoc { body: string | Uint8Array; etag: string; gzipped?: Uint8Array }
export interface OpenAPIV3 {
  /** `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}, ...}}` */
  root(): object;
  /** The document of `api`, `apis`, `apis/<group>`, `api/v1` or `apis/<group>/<version>`. */
  doc(path: string): (OpenAPIDoc & { body: string }) | undefined;
}

const META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
export const hashOf = (body: string | Uint8Array) => createHash("sha512").update(body).digest("hex").toUpperCase();
const ref = (name: string) => ({ $ref: REF_PREFIX + name });

/** A schema for a kind nobody described: the envelope with free-form spec and status. */
const generic = (kind: string): Schema => ({
  description: `${kind} object.`,
  type: "object",
  properties: {
    apiVersion: { description: "Versioned schema of this representation.", type: "string" },
    kind: { description: "The type of this object.", type: "string" },
    metadata: { description: "Standard object metadata.", allOf: [ref(META + "ObjectMeta")] },
    spec: { description: "The desired state.", type: "object", "x-kubernetes-preserve-unknown-fields": true },
    status: { description: "The observed state.", type: "object", "x-kubernetes-preserve-unknown-fields": true },
  },
});

/** Keywords of a CRD schema that neither OpenAPI v2 nor kubectl's readers take (upstream drops them too). */
const DROPPED = new Set(["nullable", "anyOf", "oneOf", "allOf", "not", "x-kubernetes-int-or-string"]);

function publishable(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(publishable);
  if (!s || typeof s !== "object") return s;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (DROPPED.has(k)) continue;
    out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as Table).map(([p, x]) => [p, publishable(x)])) : k === "default" || k === "enum" || k === "example" ? v : publishable(v);
  }
  return out;
}

/** A custom resource version's schema (its CRD's openAPIV3Schema) with the envelope's fields described. */
function customSchema(schema: Schema): Schema {
  const s = publishable(schema) as Schema;
  return {
    ...s,
    type: "object",
    properties: {
      apiVersion: { description: "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources", type: "string" },
      kind: { description: "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds", type: "string" },
      metadata: { description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata", allOf: [ref(META + "ObjectMeta")] },
      ...((s.properties as Table | undefined) ?? {}),
    },
  };
}

const listOf = (d: ResourceDef, item: string): Schema => ({
  description: `A list of ${d.kind} objects.`,
  type: "object",
  properties: {
    apiVersion: { description: "Versioned schema of this representation.", type: "string" },
    items: { description: `The ${d.kind} objects.`, type: "array", items: ref(item) },
    kind: { description: "The type of this object.", type: "string" },
    metadata: { description: "Standard list metadata.", allOf: [ref(META + "ListMeta")] },
  },
  required: ["items"],
  "x-kubernetes-group-version-kind": [{ group: d.group, kind: listKindOf(d), version: d.version }],
});

/** Every schema `paths` refers to, directly or through other schemas, from `table`, sorted by name. */
export function reachable(paths: Json, table: Table): Table {
  const seen = new Map<string, Schema>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== "object") return;
    for (const [k, x] of Object.entries(v)) {
      if (k === "$ref" && typeof x === "string" && x.startsWith(REF_PREFIX)) {
        const name = x.slice(REF_PREFIX.length);
        if (seen.has(name)) continue;
        const s = table[name];
        if (!s) throw new Error(`openapi: no schema ${name}`);
        seen.set(name, s);
        visit(s);
      } else visit(x);
    }
  };
  visit(paths);
  return Object.fromEntries([...seen.keys()].sort().map((k) => [k, seen.get(k)!]));
}

/** How every document describes its authentication: a bearer token in the Authorization header. */
export const BEARER = { type: "apiKey", description: "Bearer token: 'Bearer <token>'.", name: "authorization", in: "header" };
export const INFO = { title: "Kubernetes", version: VERSION_INFO.gitVersion.split("+")[0] };

const document = (paths: Json, schemas: Table) => ({
  openapi: "3.0.0",
  info: INFO,
  paths,
  components: { schemas: reachable(paths, schemas), securitySchemes: { BearerToken: BEARER } },
  security: [{ BearerToken: [] }],
});

/**
 * The source both OpenAPI versions render: the paths (in v3's form) of each v3 document (`api`, `apis`,
 * `apis/apps`, `api/v1`, `apis/apps/v1`), built on call, and the one table of schemas they refer to:
 * SCHEMAS, with every served kind marked with its group, version and kind, and its list.
 */
export interface ApiSource { paths: Map<string, () => Json>; schemas: Table }

function groupVersionPaths(defs: ResourceDef[]): Json {
  const { group, version } = defs[0];
  const discovery = `${group ? `/apis/${group}` : "/api"}/${version}/`;
  const paths: Json = { [discovery]: getOp(`get${gvId(defs[0])}APIResources`, "get available resources", tagOf(defs[0]), META + "APIResourceList") };
  for (const d of defs) {
    const name = schemaName(d.group, d.version, d.kind);
    Object.assign(paths, resourcePaths(d, name, `${name}List`));
  }
  return paths;
}

/** The source of `defs`' documents. */
export function apiSource(defs: ResourceDef[]): ApiSource {
  const schemas: Table = { ...SCHEMAS };
  const paths = new Map<string, () => Json>();
  const byGV = new Map<string, ResourceDef[]>();
  for (const d of defs) {
    const name = schemaName(d.group, d.version, d.kind);
    // a version with its hub's fields is described by the hub's schema
    const c = d.conversion;
    const own = SCHEMAS[name] ?? (c?.sameFields ? SCHEMAS[schemaName(c.hub.group, c.hub.version, c.hub.kind)] : undefined)
      ?? (d.custom?.schema ? customSchema(d.custom.schema) : generic(d.kind));
    schemas[name] = { ...own, "x-kubernetes-group-version-kind": [{ group: d.group, kind: d.kind, version: d.version }] };
    schemas[`${name}List`] = listOf(d, name);
    const key = d.group ? `apis/${d.group}/${d.version}` : `api/${d.version}`;
    byGV.set(key, [...(byGV.get(key) ?? []), d]);
    if (!d.group) paths.set("api", () => ({ "/api/": getOp("getCoreAPIVersions", "get available API versions", "core", META + "APIVersions") }));
    else {
      paths.set("apis", () => ({ "/apis/": getOp("getAPIVersions", "get available API versions", "apis", META + "APIGroupList") }));
      const g = d.group;
      paths.set(`apis/${g}`, () => ({ [`/apis/${g}/`]: getOp(`get${groupId(g)}APIGroup`, "get information of a group", groupTag(g), META + "APIGroup") }));
    }
  }
  for (const [key, list] of byGV) paths.set(key, () => groupVersionPaths(list));
  return { paths, schemas };
}

/** Build (lazily, once) the OpenAPI v3 documents of `defs`. */
export function openapiV3(defs: ResourceDef[]): OpenAPIV3 {
  const { paths, schemas } = apiSource(defs);
  const cache = new Map<string, OpenAPIDoc & { body: string }>();
  const doc = (path: string) => {
    const hit = cache.get(path);
    if (hit) return hit;
    const build = paths.get(path);
    if (!build) return undefined;
    const body = JSON.stringify(document(build(), schemas));
    const d = { body, etag: hashOf(body) };
    cache.set(path, d);
    return d;
  };
  let root: object | undefined;
  return {
    doc,
    root: () => (root ??= { paths: Object.fromEntries([...paths.keys()].sort().map((k) => [k, { serverRelativeURL: `/openapi/v3/${k}?hash=${doc(k)!.etag}` }])) }),
  };
}
