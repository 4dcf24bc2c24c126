// GET, PUT and PATCH of the scale subresource: the parent is read and written through the generic
// registry (guaranteedUpdate), so generation, managedFields and dry-run behave as for any write.
import { applyScale, checkScaleName, readScale, scaleOf } from "../../registry/scale.ts";
import { SUBRESOURCE_KINDS } from "../../registry/types.ts";
import { decodeObject, readBody } from "../negotiate.ts";
import { methodNotAllowed } from "../status.ts";
import { type HandlerContext, dryRun, fieldManager, respond } from "./context.ts";
import { patchObject, patchType, readPatch } from "./patch.ts";
import { represent } from "./transform.ts";

export async function scale(ctx: HandlerContext): Promise<Response> {
  const { info, rs } = ctx;
  const def = rs.def;
  const ns = info.namespace, name = info.name;
  const write = { dryRun: dryRun(ctx), fieldManager: fieldManager(ctx) };
  switch (info.verb) {
    case "get":
      return respond(ctx, represent(ctx, scaleOf(def, await rs.get(ns, name, ctx.url.searchParams.get("resourceVersion") ?? undefined)), SUBRESOURCE_KINDS.scale));
    case "update": {
      const want = readScale(decodeObject(await readBody(ctx.req), ctx.req.headers.get("content-type")));
      checkScaleName(want, name, ns);
      const parent = await rs.guaranteedUpdate(ns, name, (cur) => applyScale(def, cur, structuredClone(want)), write);
      return respond(ctx, scaleOf(def, parent));
    }
    case "patch": {
      const type = patchType(ctx);
      const { body } = await readPatch(ctx, type, false);
      const parent = await rs.guaranteedUpdate(ns, name, (cur) => applyScale(def, cur, readScale(patchObject(type, scaleOf(def, cur), body, "Scale"))), write);
      return respond(ctx, scaleOf(def, parent));
    }
  }
  throw methodNotAllowed(`the server does not allow this method on the requested resource`);
}
