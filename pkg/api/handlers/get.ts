// GET one object.
import { type HandlerContext, respond } from "./context.ts";
import { represent } from "./transform.ts";

export async function get(ctx: HandlerContext): Promise<Response> {
  const { info, url, rs } = ctx;
  const obj = await rs.get(info.namespace, info.name, url.searchParams.get("resourceVersion") ?? undefined);
  return respond(ctx, represent(ctx, obj));
}
