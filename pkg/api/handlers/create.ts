// POST to a collection.
import { decodeObject, readBody } from "../negotiate.ts";
import { isHeavy } from "../heavy.ts";
import { type HandlerContext, dryRun, fieldManager, respond } from "./context.ts";

export async function create(ctx: HandlerContext): Promise<Response> {
  const body = decodeObject(await readBody(ctx.req), ctx.req.headers.get("content-type"));
  const obj = await ctx.rs.create(ctx.info.namespace, body as Record<string, unknown>, { dryRun: dryRun(ctx), fieldManager: fieldManager(ctx), large: isHeavy(ctx.req) });
  return respond(ctx, obj, 201);
}
