// PUT one object, or its status/finalize/approval subresource.
import { decodeObject, readBody } from "../negotiate.ts";
import type { UpdateTarget } from "../../registry/types.ts";
import { isHeavy } from "../heavy.ts";
import { type HandlerContext, bodyCheck, dryRun, fieldManager, fieldValidation, respond } from "./context.ts";

export async function update(ctx: HandlerContext): Promise<Response> {
  const { info, rs } = ctx;
  const { fields, repeats } = bodyCheck(fieldValidation(ctx));
  const body = decodeObject(await readBody(ctx.req), ctx.req.headers.get("content-type"), repeats, ctx.rs.def.kind, !ctx.rs.def.custom);
  const sub = info.subresource as UpdateTarget;
  const { obj, created } = await rs.update(info.namespace, info.name, body as Record<string, unknown>, sub, { dryRun: dryRun(ctx), fieldManager: fieldManager(ctx), large: isHeavy(ctx.req), fields, user: ctx.user, warnings: ctx.warnings });
  ctx.warnings.push(...fields.warnings);
  return respond(ctx, obj, created ? 201 : 200);
}
