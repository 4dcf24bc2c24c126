// Serves the OpenAPI documents: /openapi/v3 (the index), /openapi/v3/<group version>, and /openapi/v2
// as JSON or protobuf. Every answer carries its document's ETag (If-None-Match gives 304); large ones
// are gzipped as other responses are.
import { GZIP_OVER, acceptsGzip } from "../api/limits.ts";
import { BUILTIN } from "../registry/builtin.ts";
import type { ResourceDef } from "../registry/types.ts";
import { type OpenAPIDoc, type OpenAPIV3, hashOf, openapiV3 } from "./document.ts";
import { type OpenAPIV2, openapiV2 } from "./v2.ts";

const NOT_FOUND = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server could not find the requested resource", reason: "NotFound", details: {}, code: 404 };
const statusReply = (s: { code: number; [k: string]: unknown }) => Response.json(s, { status: s.code });
const notAcceptable = (types: string[]) =>
  statusReply({ ...NOT_FOUND, message: `only the following media types are accepted: ${types.join(", ")}`, reason: "NotAcceptable", code: 406 });

const etagMatches = (inm: string | null, etag: string) =>
  !!inm && inm.split(",").some((t) => { const v = t.trim().replace(/^W\//, ""); return v === "*" || v === `"${etag}"`; });

const ANY_JSON = ["application/json", "application/*", "*/*", ""];
/** The v2 protobuf type, as kubectl up to 1.22 writes it and as later clients do ('@' is not valid in a media type). */
const V2_PROTOBUF = ["application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"];

/**
 * The Content-Type of an answer in `type`: Go's mime parser (client-go reads every Content-Type with it)
 * refuses the '@' form, so that one is answered as bytes, which is what upstream's content sniffing says.
 */
const contentTypeOf = (type: string) => (type.includes("@") ? "application/octet-stream" : type);

/** The first media type in `accept` that is one of `offered` (JSON for a missing Accept or a wildcard). */
function negotiate(accept: string | null, offered: string[]): string | undefined {
  if (!accept) return "application/json";
  for (const entry of accept.split(",")) {
    const t = entry.split(";")[0].trim().toLowerCase();
    if (ANY_JSON.includes(t)) return "application/json";
    if (offered.includes(t)) return t;
  }
  return undefined;
}

export interface ServeOptions { gzip: boolean }

function serve(d: OpenAPIDoc, headers: Headers, type: string, extra: Record<string, string>, opts: ServeOptions): Response {
  const h: Record<string, string> = { ETag: `"${d.etag}"`, ...extra };
  if (etagMatches(headers.get("if-none-match"), d.etag)) return new Response(null, { status: 304, headers: h });
  const size = typeof d.body === "string" ? Buffer.byteLength(d.body) : d.body.length;
  if (opts.gzip && size > GZIP_OVER && acceptsGzip(headers)) {
    d.gzipped ??= Bun.gzipSync(typeof d.body === "string" ? Buffer.from(d.body) : (d.body as Uint8Array<ArrayBuffer>), { level: 1 });
    const vary = h.Vary ? `${h.Vary}, Accept-Encoding` : "Accept-Encoding";
    return new Response(d.gzipped, { status: 200, headers: { "Content-Type": type, "Content-Encoding": "gzip", ...h, Vary: vary } });
  }
  return new Response(d.body, { status: 200, headers: { "Content-Type": type, ...h } });
}

export type OpenAPIHandler = (url: URL, headers: Headers, opts?: ServeOptions) => Response | undefined;

/** An HTTP handler over `v3` and (built on its first request) `v2`; undefined for paths it does not serve. */
export function openapiHandler(v3: OpenAPIV3, v2: () => OpenAPIV2): OpenAPIHandler {
  let root: OpenAPIDoc | undefined;
  let built: OpenAPIV2 | undefined;
  return (url, headers, opts = { gzip: false }) => {
    const path = url.pathname.replace(/\/+$/, "");
    if (path === "/openapi/v2") {
      const type = negotiate(headers.get("accept"), V2_PROTOBUF);
      if (!type) return notAcceptable(["application/json", ...V2_PROTOBUF]);
      built ??= v2();
      const d = type === "application/json" ? built.json : built.protobuf;
      return serve(d, headers, contentTypeOf(type), { "Cache-Control": "no-cache, private", Vary: "Accept" }, opts);
    }
    if (path === "/openapi/v3") {
      if (!root) { const body = JSON.stringify(v3.root()); root = { body, etag: hashOf(body) }; }
      return serve(root, headers, "application/json", { "Cache-Control": "no-cache, private" }, opts);
    }
    if (!path.startsWith("/openapi/v3/")) return undefined;
    const gv = path.slice("/openapi/v3/".length);
    const d = v3.doc(gv);
    if (!d) return statusReply(NOT_FOUND);
    if (!negotiate(headers.get("accept"), [])) return notAcceptable(["application/json"]);
    const hash = url.searchParams.get("hash");
    if (hash && hash !== d.etag) {
      return new Response(null, { status: 301, headers: { Location: `/openapi/v3/${gv}?hash=${d.etag}`, "Cache-Control": "no-cache, private" } });
    }
    return serve(d, headers, "application/json", hash
      ? { "Cache-Control": "public, immutable", Expires: new Date(Date.now() + 365 * 86400_000).toUTCString(), Vary: "Accept" }
      : { "Cache-Control": "no-cache, private", Vary: "Accept" }, opts);
  };
}

let built: { defs: ResourceDef[]; handler: OpenAPIHandler } | undefined;
/** The handler for the served types (`defs`, the built-in ones by default); built again when they change. */
export function handleOpenAPI(url: URL, headers: Headers, opts?: ServeOptions, defs: ResourceDef[] = BUILTIN): Response | undefined {
  if (built?.defs !== defs) built = { defs, handler: openapiHandler(openapiV3(defs), () => openapiV2(defs)) };
  return built.handler(url, headers, opts);
}
