// GET a collection: selectors, chunking and resourceVersion semantics live in the registry.
import { parseLabelSelector } from "../../registry/selector.ts";
import type { ListOptions } from "../../registry/store-options.ts";
import { int64Param } from "../queryparams.ts";
import { type HandlerContext, respond } from "./context.ts";
import { represent } from "./transform.ts";

const MAX_LIMIT = 2 ** 31 - 1;

export function listOptions(ctx: HandlerContext): ListOptions {
  const p = ctx.url.searchParams;
  // an int64; any limit beyond the stored items is no limit
  const n = int64Param(p, "limit");
  const limit = n === undefined ? undefined : Number(n < 0n ? 0n : n > BigInt(MAX_LIMIT) ? BigInt(MAX_LIMIT) : n);
  return {
    labelSelector: parseLabelSelector(p.get("labelSelector")),
    fieldSelector: ctx.rs.fieldSelector(p.get("fieldSelector")),
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
