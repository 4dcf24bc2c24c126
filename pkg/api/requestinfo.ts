// Parses a request path into what it addresses, as upstream's RequestInfoFactory does.
import { badRequest } from "./status.ts";

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

function truthy(v: string | null) {
  return v === "1" || v === "true" || v === "True" || v === "TRUE" || v === "t" || v === "T";
}

export function parseRequestInfo(method: string, url: URL): RequestInfo {
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
