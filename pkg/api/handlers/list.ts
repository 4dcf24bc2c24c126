// GET a collection: selectors, chunking and resourceVersion semantics live in the registry.
import { parseFieldSelector, parseLabelSelector } from "../../registry/selector.ts";
import type { ListOptions } from "../../registry/generic.ts";
import { badRequest } from "../status.ts";
import { type HandlerContext, respond } from "./context.ts";
import { represent } from "./transform.ts";

export function listOptions(ctx: HandlerContext): ListOptions {
  const p = ctx.url.searchParams;
  const limitStr = p.get("limit");
  let limit: number | undefined;
  if (limitStr) {
    limit = Number(limitStr);
    if (!Number.isInteger(limit)) throw badRequest(`limit: Invalid value: "${limitStr}": must be an integer`);
    if (limit < 0) limit = 0;
  }
  return {
    labelSelector: parseLabelSelector(p.get("labelSelector")),
    fieldSelector: parseFieldSelector(p.get("fieldSelector"), ctx.rs.supportedFieldLabels).match,
    limit,
    continue: p.get("continue") || undefined,
    resourceVersion: p.get("resourceVersion") ?? undefined,
    resourceVersionMatch: p.get("resourceVersionMatch") || undefined,
  };
}

export async function list(ctx: HandlerContext): Promise<Response> {
  const opts = listOptions(ctx);
  if (!ctx.features.APIListChunking) opts.limit = opts.continue = undefined;
  const out = await ctx.rs.list(ctx.info.namespace, opts);
  if (!ctx.features.RemainingItemCount) delete out.metadata.remainingItemCount;
  return respond(ctx, represent(ctx, out));
}
