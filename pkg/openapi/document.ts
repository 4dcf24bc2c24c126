// OpenAPI v3 for the served types: the root index (/openapi/v3) and one document per group
// version (/openapi/v3/apis/apps/v1), built lazily once, each with a content hash used as ETag.
import { createHash } from "node:crypto";
import { BUILTIN } from "../registry/builtin.ts";
import type { ResourceDef } from "../registry/types.ts";
import { VERSION_INFO } from "../version.ts";
import { type Json, getOp, groupId, groupTag, gvId, resourcePaths, tagOf } from "./operations.ts";
import { REF_PREFIX, SCHEMAS, type Schema, type Table, schemaName } from "./schemas/index.ts";

export interface OpenAPIDoc { body: string; etag: string }
export interface OpenAPIV3 {
  /** `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}, ...}}` */
  root(): object;
  /** The document of `api`, `apis`, `apis/<group>`, `api/v1` or `apis/<group>/<version>`. */
  doc(path: string): OpenAPIDoc | undefined;
}

const META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const hashOf = (body: string) => createHash("sha512").update(body).digest("hex").toUpperCase();
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
  "x-kubernetes-group-version-kind": [{ group: d.group, kind: `${d.kind}List`, version: d.version }],
});

/** Every schema `paths` refers to, directly or through other schemas, sorted by name. */
function reachable(paths: Json, local: Table): Table {
  const seen = new Map<string, Schema>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== "object") return;
    for (const [k, x] of Object.entries(v)) {
      if (k === "$ref" && typeof x === "string" && x.startsWith(REF_PREFIX)) {
        const name = x.slice(REF_PREFIX.length);
        if (seen.has(name)) continue;
        const s = local[name] ?? SCHEMAS[name];
        if (!s) throw new Error(`openapi: no schema ${name}`);
        seen.set(name, s);
        visit(s);
      } else visit(x);
    }
  };
  visit(paths);
  return Object.fromEntries([...seen.keys()].sort().map((k) => [k, seen.get(k)!]));
}

const document = (paths: Json, local: Table = {}) => ({
  openapi: "3.0.0",
  info: { title: "Kubernetes", version: VERSION_INFO.gitVersion.split("+")[0] },
  paths,
  components: {
    schemas: reachable(paths, local),
    securitySchemes: { BearerToken: { type: "apiKey", description: "Bearer token: 'Bearer <token>'.", name: "authorization", in: "header" } },
  },
  security: [{ BearerToken: [] }],
});

function groupVersionDoc(defs: ResourceDef[]): object {
  const { group, version } = defs[0];
  const discovery = `${group ? `/apis/${group}` : "/api"}/${version}/`;
  const paths: Json = { [discovery]: getOp(`get${gvId(defs[0])}APIResources`, "get available resources", tagOf(defs[0]), META + "APIResourceList") };
  const local: Table = {};
  for (const d of defs) {
    const name = schemaName(d.group, d.version, d.kind);
    local[name] = { ...(SCHEMAS[name] ?? generic(d.kind)), "x-kubernetes-group-version-kind": [{ group: d.group, kind: d.kind, version: d.version }] };
    local[`${name}List`] = listOf(d, name);
    Object.assign(paths, resourcePaths(d, name, `${name}List`));
  }
  return document(paths, local);
}

/** Build (lazily, once) the OpenAPI v3 documents of `defs`. */
export function openapiV3(defs: ResourceDef[]): OpenAPIV3 {
  const builders = new Map<string, () => object>();
  const byGV = new Map<string, ResourceDef[]>();
  for (const d of defs) {
    const key = d.group ? `apis/${d.group}/${d.version}` : `api/${d.version}`;
    byGV.set(key, [...(byGV.get(key) ?? []), d]);
    if (!d.group) builders.set("api", () => document({ "/api/": getOp("getCoreAPIVersions", "get available API versions", "core", META + "APIVersions") }));
    else {
      builders.set("apis", () => document({ "/apis/": getOp("getAPIVersions", "get available API versions", "apis", META + "APIGroupList") }));
      const g = d.group;
      builders.set(`apis/${g}`, () => document({ [`/apis/${g}/`]: getOp(`get${groupId(g)}APIGroup`, "get information of a group", groupTag(g), META + "APIGroup") }));
    }
  }
  for (const [key, list] of byGV) builders.set(key, () => groupVersionDoc(list));

  const cache = new Map<string, OpenAPIDoc>();
  const doc = (path: string): OpenAPIDoc | undefined => {
    const hit = cache.get(path);
    if (hit) return hit;
    const build = builders.get(path);
    if (!build) return undefined;
    const body = JSON.stringify(build());
    const d = { body, etag: hashOf(body) };
    cache.set(path, d);
    return d;
  };
  let root: object | undefined;
  return {
    doc,
    root: () => (root ??= { paths: Object.fromEntries([...builders.keys()].sort().map((k) => [k, { serverRelativeURL: `/openapi/v3/${k}?hash=${doc(k)!.etag}` }])) }),
  };
}

// --- HTTP -----------------------------------------------------------------------------

const NOT_FOUND = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server could not find the requested resource", reason: "NotFound", details: {}, code: 404 };
const statusReply = (s: { code: number; [k: string]: unknown }) => Response.json(s, { status: s.code });

const etagMatches = (inm: string | null, etag: string) =>
  !!inm && inm.split(",").some((t) => { const v = t.trim().replace(/^W\//, ""); return v === "*" || v === `"${etag}"`; });

const acceptsJSON = (accept: string | null) =>
  !accept || accept.split(",").some((m) => ["application/json", "application/*", "*/*", ""].includes(m.split(";")[0].trim().toLowerCase()));

function serve(d: OpenAPIDoc, headers: Headers, extra: Record<string, string>): Response {
  const h = { ETag: `"${d.etag}"`, ...extra };
  if (etagMatches(headers.get("if-none-match"), d.etag)) return new Response(null, { status: 304, headers: h });
  return new Response(d.body, { status: 200, headers: { "Content-Type": "application/json", ...h } });
}

/** An HTTP handler over `api`: answers /openapi/v3, /openapi/v3/<gv> and /openapi/v2 (404); undefined otherwise. */
export function openapiHandler(api: OpenAPIV3): (url: URL, headers: Headers) => Response | undefined {
  let root: OpenAPIDoc | undefined;
  return (url, headers) => {
    const path = url.pathname.replace(/\/+$/, "");
    if (path === "/openapi/v2") return statusReply(NOT_FOUND);
    if (path === "/openapi/v3") {
      if (!root) { const body = JSON.stringify(api.root()); root = { body, etag: hashOf(body) }; }
      return serve(root, headers, { "Cache-Control": "no-cache, private" });
    }
    if (!path.startsWith("/openapi/v3/")) return undefined;
    const gv = path.slice("/openapi/v3/".length);
    const d = api.doc(gv);
    if (!d) return statusReply(NOT_FOUND);
    if (!acceptsJSON(headers.get("accept"))) {
      return statusReply({ ...NOT_FOUND, message: "only the following media types are accepted: application/json", reason: "NotAcceptable", code: 406 });
    }
    const hash = url.searchParams.get("hash");
    if (hash && hash !== d.etag) {
      return new Response(null, { status: 301, headers: { Location: `/openapi/v3/${gv}?hash=${d.etag}`, "Cache-Control": "no-cache, private" } });
    }
    return serve(d, headers, hash
      ? { "Cache-Control": "public, immutable", Expires: new Date(Date.now() + 365 * 86400_000).toUTCString(), Vary: "Accept" }
      : { "Cache-Control": "no-cache, private", Vary: "Accept" });
  };
}

let builtin: ((url: URL, headers: Headers) => Response | undefined) | undefined;
/** The handler for the built-in types. */
export function handleOpenAPI(url: URL, headers: Headers): Response | undefined {
  builtin ??= openapiHandler(openapiV3(BUILTIN));
  return builtin(url, headers);
}
