// GET a collection: selectors, chunking and resourceVersion semantics live in the registry.
import { parseLabelSelector } from "../../registry/selector.ts";
import type { ListOptions } from "../../registry/generic.ts";
import { badRequest } from "../status.ts";
import { type HandlerContext, respond } from "./context.ts";
import { represent } from "./transform.ts";

const INT64_MAX = 2n ** 63n - 1n;
const MAX_LIMIT = 2 ** 31 - 1;

export function listOptions(ctx: HandlerContext): ListOptions {
  const p = ctx.url.searchParams;
  const limitStr = p.get("limit");
  let limit: number | undefined;
  if (limitStr) {
    limit = Number(limitStr);
    if (!/^[-+]?\d+$/.test(limitStr)) throw badRequest(`limit: Invalid value: "${limitStr}": must be an integer`);
    // upstream parses an int64; past that it is out of range, below it any limit beyond the stored items is no limit
    if (BigInt(limitStr) > INT64_MAX || BigInt(limitStr) < -INT64_MAX - 1n) throw badRequest(`limit: Invalid value: "${limitStr}": value out of range`);
    limit = Math.min(Math.max(limit, 0), MAX_LIMIT);
  }
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
