// GET one object.
import { type HandlerContext, respond } from "./context.ts";

export async function get(ctx: HandlerContext): Promise<Response> {
  const { info, url, rs } = ctx;
  const obj = await rs.get(info.namespace, info.name, url.searchParams.get("resourceVersion") ?? undefined);
  return respond(ctx, obj);
}
