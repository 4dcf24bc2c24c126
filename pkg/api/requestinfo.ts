// Parses a request path into what it addresses, as upstream's RequestInfoFactory does.
import type { RawPath } from "./rawpath.ts";
import { StatusError, badRequest } from "./status.ts";

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: "api" | "apis" | "";
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
}

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/** As upstream's request info reads `watch`: any value but "0" or "false" (any case). */
function truthy(v: string | null) {
  return v !== null && v !== "0" && v.toLowerCase() !== "false";
}

/** Upstream's rule for a name or namespace in a path: never a dot segment, never a `/` or `%` in it. */
function checkPathSegment(what: "Name" | "Namespace", v: string) {
  const why = v === "." || v === ".." ? `may not be '${v}'` : v.includes("/") ? "may not contain '/'" : v.includes("%") ? "may not contain '%'" : "";
  if (why) throw badRequest(`${what} parameter invalid: ${JSON.stringify(v)}: ${why}`);
}

/**
 * `raw` is the path's segments as the client sent them (see rawpath.ts); without it the URL's (normalised)
 * path is read, which only in-process callers may rely on. A resource path the router could not take
 * as sent is not served.
 */
export function parseRequestInfo(method: string, url: URL, raw?: RawPath): RequestInfo {
  const path = url.pathname;
  const info: RequestInfo = {
    isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: "", group: "", version: "",
    namespace: "", resource: "", subresource: "", name: "", parts: [],
  };
  let segs = path.split("/").filter((s) => s !== "");
  if (path.includes("%")) {
    try {
      segs = segs.map(decodeURIComponent);
    } catch {
      throw badRequest(`invalid URL escape in path "${path}"`);
    }
  }
  if (Array.isArray(raw)) segs = raw;
  if (segs[0] !== "api" && segs[0] !== "apis") return info;
  info.apiPrefix = segs[0];
  let rest = segs.slice(1);
  if (info.apiPrefix === "apis") {
    if (rest.length < 2) return info; // /apis or /apis/G: discovery
    info.group = rest[0];
    rest = rest.slice(1);
  }
  if (rest.length < 2) return info; // /api, /api/v1, /apis/G/V: discovery
  info.version = rest[0];
  rest = rest.slice(1);
  info.isResourceRequest = true;
  let watchPath = false;
  if (rest[0] === "watch") {
    watchPath = true;
    rest = rest.slice(1);
  }
  if (rest[0] === "namespaces" && rest.length >= 2) {
    info.namespace = rest[1];
    // /namespaces/NS/RESOURCE... addresses a namespaced resource; /namespaces/NS[/status] the namespace itself.
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  info.parts = rest;
  info.resource = rest[0] ?? "";
  info.name = rest[1] ?? "";
  info.subresource = rest[2] ?? "";
  if (info.resource === "namespaces") info.namespace = "";
  // a proxy path goes on past the subresource, as deep as it likes and with a trailing slash if it has one
  if (raw === "unmatched" && info.subresource !== "proxy") throw new StatusError(404, "NotFound", "the server could not find the requested resource", {});
  if (info.namespace) checkPathSegment("Namespace", info.namespace);
  if (info.name) checkPathSegment("Name", info.name);
  switch (method) {
    case "GET": case "HEAD":
      info.verb = info.name ? "get" : "list";
      if (watchPath || (truthy(url.searchParams.get("watch")) && !info.name)) info.verb = "watch";
      break;
    case "POST": info.verb = "create"; break;
    case "PUT": info.verb = "update"; break;
    case "PATCH": info.verb = "patch"; break;
    case "DELETE": info.verb = info.name ? "delete" : "deletecollection"; break;
  }
  return info;
}
