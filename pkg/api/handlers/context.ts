// What every resource handler receives, and how it answers.
import type { ResourceStore } from "../../registry/generic.ts";
import { jsonOf, listJSON } from "../../registry/serialized.ts";
import { encodeBody, type Representation } from "../negotiate.ts";
import type { RequestInfo } from "../requestinfo.ts";
import { badRequest } from "../status.ts";

export interface HandlerContext {
  req: Request;
  url: URL;
  info: RequestInfo;
  rs: ResourceStore;
  rep: Representation;
  /** Aborted when the request times out or the server shuts down. */
  signal: AbortSignal;
  /** Warnings for the Warning header (deprecations, ignored options). */
  warnings: string[];
}

export function respond(ctx: HandlerContext, obj: unknown, status = 200): Response {
  if (ctx.rep.format === "json" && typeof obj === "object" && obj !== null) {
    // Objects from the watch cache carry their JSON already; a list reuses each item's.
    const o = obj as Record<string, any>;
    const body = Array.isArray(o.items) ? listJSON(o as { items: object[] }) : jsonOf(o);
    return new Response(body, { status, headers: { "Content-Type": contentType(ctx) } });
  }
  const { body, type } = encodeBody(obj, ctx.rep.format);
  return new Response(body, { status, headers: { "Content-Type": type } });
}

/** The Content-Type names exactly the representation served. */
export function contentType(ctx: HandlerContext): string {
  const r = ctx.rep;
  return r.as ? `application/json;as=${r.as};g=${r.group};v=${r.version}` : "application/json";
}

/** dryRun accepts only All (spec §4.3); anything else is a 400. */
export function dryRun(url: URL): boolean {
  const v = url.searchParams.getAll("dryRun");
  if (v.length === 0 || (v.length === 1 && v[0] === "")) return false;
  if (v.every((x) => x === "All")) return true;
  throw badRequest(`dryRun: Unsupported value: "${v.find((x) => x !== "All")}": supported values: "All"`);
}
