// PATCH one object (or its status) with a merge, JSON or strategic merge patch.
import { jsonPatch, mergePatch, PatchFailure } from "../../patch/merge.ts";
import { PatchError, strategicMergePatch } from "../../patch/strategic.ts";
import { parseMediaTypes, parseText, readBody, text } from "../negotiate.ts";
import { StatusError, unsupportedMediaType } from "../status.ts";
import { type HandlerContext, dryRun, respond } from "./context.ts";

type Patcher = (cur: Record<string, any>, patch: unknown, kind: string) => unknown;

const PATCHERS: Record<string, Patcher> = {
  "application/merge-patch+json": (cur, p) => mergePatch(cur, p),
  "application/json-patch+json": (cur, p) => jsonPatch(cur, p),
  "application/strategic-merge-patch+json": (cur, p, kind) => strategicMergePatch(cur, p, kind),
};

export async function patch(ctx: HandlerContext): Promise<Response> {
  const { info, rs, req } = ctx;
  const type = parseMediaTypes(req.headers.get("content-type"))[0]?.type ?? "";
  const patcher = PATCHERS[type];
  if (!patcher) throw unsupportedMediaType(type);
  const body = parseText(text(await readBody(req)), false);
  const obj = await rs.guaranteedUpdate(info.namespace, info.name, (cur) => {
    try {
      return patcher(cur, body, rs.def.kind) as Record<string, any>;
    } catch (e) {
      if (e instanceof PatchFailure || e instanceof PatchError) {
        throw new StatusError(422, "Invalid", `the server rejected our request due to an error in our request: ${e.message}`);
      }
      throw e;
    }
  }, { dryRun: dryRun(ctx.url), sub: info.subresource === "status" ? "status" : "" });
  return respond(ctx, obj);
}
