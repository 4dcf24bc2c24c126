// POST of a kind whose objects are never stored (TokenReview and the other reviews): the body is checked
// as any create's, the server's hook for the kind fills in the answer, and the object comes back 201.
import type { Obj } from "../../registry/types.ts";
import { decodeObject, readBody } from "../negotiate.ts";
import { methodNotAllowed } from "../status.ts";
import { type HandlerContext, bodyCheck, dryRun, fieldValidation, respond } from "./context.ts";

export type EphemeralHook = (obj: Obj, ctx: HandlerContext) => Obj | Promise<Obj>;

export async function createEphemeral(ctx: HandlerContext, hook: EphemeralHook | undefined): Promise<Response> {
  if (!hook || ctx.info.verb !== "create" || ctx.info.name) throw methodNotAllowed("the server does not allow this method on the requested resource");
  dryRun(ctx);
  const { fields, repeats } = bodyCheck(fieldValidation(ctx));
  const body = decodeObject(await readBody(ctx.req), ctx.req.headers.get("content-type"), repeats, ctx.rs.def.kind);
  const obj = ctx.rs.checkBody(body, ctx.info.namespace, fields);
  ctx.warnings.push(...fields.warnings);
  return respond(ctx, await hook(obj, ctx), 201);
}
