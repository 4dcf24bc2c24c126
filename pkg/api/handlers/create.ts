// POST to a collection.
import { decodeObject, readBody } from "../negotiate.ts";
import { isHeavy } from "../heavy.ts";
import { type HandlerContext, bodyCheck, dryRun, fieldManager, fieldValidation, respond } from "./context.ts";

export async function create(ctx: HandlerContext): Promise<Response> {
  const { fields, repeats } = bodyCheck(fieldValidation(ctx));
  const body = decodeObject(await readBody(ctx.req), ctx.req.headers.get("content-type"), repeats, ctx.rs.def.kind, !ctx.rs.def.custom);
  const obj = await ctx.rs.create(ctx.info.namespace, body as Record<string, unknown>, { dryRun: dryRun(ctx), fieldManager: fieldManager(ctx), large: isHeavy(ctx.req), fields, user: ctx.user, warnings: ctx.warnings });
  ctx.warnings.push(...fields.warnings);
  return respond(ctx, obj, 201);
}
