// PATCH one object (or its status): merge, JSON and strategic merge patches, and server-side apply.
import { applyConfig, conflictCauses, conflictMessage, validateApplyConfig, ApplyError } from "../../apply/index.ts";
import { isHeavy } from "../heavy.ts";
import { MAX_BODY } from "../limits.ts";
import { breather } from "../../registry/generic.ts";
import { jsonPatch, PatchFailure, PatchTooLarge } from "../../patch/jsonpatch.ts";
import { mergePatch } from "../../patch/merge.ts";
import { PatchError, strategicMergePatch } from "../../patch/strategic.ts";
import { apiVersionOf, type Obj, type UpdateTarget } from "../../registry/types.ts";
import { parseMediaTypes, parseText, readBody, text } from "../negotiate.ts";
import { boolParam } from "../queryparams.ts";
import { StatusError, badRequest, invalidOptions, tooLarge, unsupportedMediaType } from "../status.ts";
import { type HandlerContext, dryRun, fieldManager, fieldValidation, respond } from "./context.ts";
import { type FieldCheck, newRepeats, yamlRepeat, yamlRepeatsError } from "../../fieldvalidation/index.ts";
import { undeclaredFields } from "../../fieldvalidation/apply.ts";
import { patchProblems } from "../../fieldvalidation/patch.ts";
import { checkPatched } from "./undecodable.ts";

type Patcher = (cur: Record<string, any>, patch: unknown, kind: string) => unknown;

const PATCHERS: Record<string, Patcher> = {
  "application/json-patch+json": (cur, p) => jsonPatch(cur, p),
  "application/merge-patch+json": (cur, p) => mergePatch(cur, p),
  "application/strategic-merge-patch+json": (cur, p, kind) => strategicMergePatch(cur, p, kind),
};

const APPLY = "application/apply-patch+yaml";
const STRATEGIC = "application/strategic-merge-patch+json";

/** What a patch writes: the object, or its status-like subresource. */
const target = (ctx: HandlerContext): UpdateTarget => (ctx.info.subresource === "status" || ctx.info.subresource === "approval" ? ctx.info.subresource : "");

/** `force` is for apply only: upstream refuses it on any other patch, whatever its value. */
function force(ctx: HandlerContext, apply: boolean): boolean {
  const on = boolParam(ctx.url.searchParams, "force");
  if (on !== undefined && !apply) throw invalidOptions("PatchOptions", "force", "Forbidden: may not be specified for non-apply patch", "FieldValueForbidden");
  return on ?? false;
}

export async function patch(ctx: HandlerContext): Promise<Response> {
  const { info, rs, req } = ctx;
  const type = patchType(ctx);
  if (type === APPLY && ctx.features.ServerSideApply) return apply(ctx);
  const { body, fields } = await readPatch(ctx, type, ctx.features.ServerSideApply);
  const obj = await rs.guaranteedUpdate(info.namespace, info.name, (cur) => patchObject(type, cur, body, rs.def.kind),
    { dryRun: dryRun(ctx), fieldManager: fieldManager(ctx), sub: target(ctx), large: isHeavy(req), fields, user: ctx.user, warnings: ctx.warnings });
  ctx.warnings.push(...fields.warnings);
  return respond(ctx, obj);
}

export const patchType = (ctx: HandlerContext) => parseMediaTypes(ctx.req.headers.get("content-type"))[0]?.type ?? "";

/**
 * The body of a merge, JSON or strategic merge patch (415 for another type; `apply` lists apply among the
 * accepted), with what the fieldValidation parameter asks of it.
 */
export async function readPatch(ctx: HandlerContext, type: string, apply: boolean): Promise<{ body: unknown; fields: FieldCheck }> {
  // custom resources have no patch strategies: no strategic merge, as upstream
  const offered = Object.keys(PATCHERS).filter((t) => !ctx.rs.def.custom || t !== STRATEGIC);
  if (!offered.includes(type)) throw unsupportedMediaType([...offered, ...(apply ? [APPLY] : [])].join(", "));
  force(ctx, false);
  const directive = fieldValidation(ctx);
  const repeats = directive === "Ignore" ? undefined : newRepeats(false);
  const body = parseText(text(await readBody(ctx.req)), false, repeats);
  const isJsonPatch = type === "application/json-patch+json";
  if (isJsonPatch && !Array.isArray(body)) throw badRequest("the body of a JSON patch must be a list of operations");
  return { body, fields: { directive, patch: true, before: repeats ? patchProblems(body, repeats, isJsonPatch) : [], warnings: [] } };
}

/** cur patched by a body of `type`, with upstream's answers to a patch that cannot apply or grows too large. */
export function patchObject(type: string, cur: Obj, body: unknown, kind: string): Obj {
  let out;
  try {
    out = PATCHERS[type](cur, body, kind) as Obj;
  } catch (e) {
    if (e instanceof PatchTooLarge) throw new StatusError(413, "RequestEntityTooLarge", `Request entity too large: ${e.message}`);
    if (e instanceof PatchFailure || e instanceof PatchError) {
      throw new StatusError(422, "Invalid", `the server rejected our request due to an error in our request: ${e.message}`);
    }
    throw e;
  }
  // A patch may not make an object larger than a request may carry.
  if (JSON.stringify(out ?? null).length > MAX_BODY) throw tooLarge();
  checkPatched(out, body, type === "application/strategic-merge-patch+json");
  return out;
}

/** Server-side apply (spec §9.1): merge the applied configuration, track ownership, refuse conflicts. */
async function apply(ctx: HandlerContext): Promise<Response> {
  const { info, rs, url } = ctx;
  fieldManager(ctx); // validates it
  const manager = url.searchParams.get("fieldManager");
  if (!manager) throw invalidOptions("PatchOptions", "fieldManager", "Required value: is required for apply patch", "FieldValueRequired", 400);
  const forced = force(ctx, true);
  const directive = fieldValidation(ctx);
  const repeats = directive === "Ignore" ? undefined : newRepeats(true);
  const config = parseText(text(await readBody(ctx.req)), true, repeats);
  if (typeof config !== "object" || config === null || Array.isArray(config)) throw badRequest("the apply configuration must be an object");
  const apiVersion = apiVersionOf(rs.def);
  const problem = validateApplyConfig(config as Obj, { apiVersion, kind: rs.def.kind, name: info.name, namespace: info.namespace || undefined })
    ?? undeclaredFields(config as Obj, { ...rs.def, namespace: info.namespace, name: info.name });
  if (problem) throw badRequest(problem);
  // Repeated keys are reported once the configuration merged, as upstream checks them after the merge.
  const repeated = repeats?.list ?? [];
  if (directive === "Warn") ctx.warnings.push(...repeated.map(yamlRepeat));
  const opts = { ignoreFields: info.subresource === "status" ? [] : rs.applyIgnoredFields, schema: rs.def.custom?.schema };
  const merge = (live: Obj | undefined): Obj => {
    let r;
    try {
      r = applyConfig(rs.def.kind, apiVersion, live, config as Obj, manager, forced, new Date().toISOString().replace(/\.\d{3}Z$/, "Z"), opts);
    } catch (e) {
      if (e instanceof ApplyError) throw new StatusError(e.status === 400 ? 400 : 500, e.status === 400 ? "BadRequest" : "InternalError", e.message);
      throw e;
    }
    if ("conflicts" in r) {
      throw new StatusError(409, "Conflict", conflictMessage(r.conflicts), { causes: conflictCauses(r.conflicts) });
    }
    if (directive === "Strict" && repeated.length) throw badRequest(`error strict decoding YAML: error converting YAML to JSON: ${yamlRepeatsError(repeated)}`);
    return r.object;
  };
  const dry = dryRun(ctx);
  const sub = target(ctx);
  const large = isHeavy(ctx.req);
  // The merge of a large configuration is the costliest step of a write: others run before and after it.
  const mergeLarge = async (live: Obj | undefined) => {
    await breather();
    const out = merge(live);
    await breather();
    return out;
  };
  const merged = (live: Obj | undefined) => (large ? mergeLarge(live) : merge(live));
  // Apply to a missing object creates it. If another writer creates it first, this apply updates it; that
  // object is readable once its write is durable, a moment after the create that lost learns of it.
  for (let attempt = 0; ; attempt++) {
    const exists = await rs.get(info.namespace, info.name).then(() => true, (e) => { if (e.code === 404) return false; throw e; });
    try {
      if (!exists) return respond(ctx, await rs.create(info.namespace, await merged(undefined), { dryRun: dry, large, user: ctx.user, warnings: ctx.warnings }), 201);
      return respond(ctx, await rs.guaranteedUpdate(info.namespace, info.name, (cur) => merged(cur), { dryRun: dry, sub, large, user: ctx.user, warnings: ctx.warnings }));
    } catch (e) {
      const raced = e instanceof StatusError && (exists ? e.code === 404 : e.reason === "AlreadyExists");
      if (!raced || attempt >= 100) throw e;
      await Bun.sleep(1);
    }
  }
}
