// DELETE one object or a collection, with DeleteOptions from the body or the query.
import type { DeleteOptions } from "../../registry/store-options.ts";
import { decodeObject, readBody } from "../negotiate.ts";
import { boolParam, int64Param } from "../queryparams.ts";
import { StatusError, badRequest } from "../status.ts";
import { type HandlerContext, dryRunValue, respond } from "./context.ts";
import { listOptions } from "./list.ts";

const POLICIES = ["Orphan", "Background", "Foreground"];

/** DeleteOptions that fail validation are a 422, as upstream's ValidateDeleteOptions makes them. */
const invalidOptions = (field: string, message: string) =>
  new StatusError(422, "Invalid", `DeleteOptions.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    group: "meta.k8s.io", kind: "DeleteOptions", causes: [{ reason: "FieldValueNotSupported", field, message }],
  });

const strings = (v: unknown) => Object.values(v as object).every((x) => x === null || typeof x === "string");

/** The type of each DeleteOptions field, as decoding into upstream's struct demands: a body cannot mean a dry run it does not spell right. */
const FIELD_TYPES: Record<string, [string, (v: unknown) => boolean]> = {
  gracePeriodSeconds: ["an integer", Number.isInteger],
  propagationPolicy: ["a string", (v) => typeof v === "string"],
  orphanDependents: ["a boolean", (v) => typeof v === "boolean"],
  dryRun: ["a list of strings", (v) => Array.isArray(v) && strings(v)],
  preconditions: ["an object of strings", (v) => typeof v === "object" && !Array.isArray(v) && strings(v)],
};

/**
 * DeleteOptions come from the body when there is one (JSON, YAML or protobuf, as its Content-Type says),
 * else from the query, as upstream reads them: never from both.
 */
async function deleteOptions(ctx: HandlerContext): Promise<DeleteOptions> {
  const raw = await readBody(ctx.req);
  return checkDeleteOptions(raw.length ? decodeObject(raw, ctx.req.headers.get("content-type")) : fromQuery(ctx.url.searchParams));
}

/** DeleteOptions as a body spells them (also inside an Eviction), checked as upstream decodes and validates them. */
export function checkDeleteOptions(raw: unknown): DeleteOptions {
  const body = raw as Record<string, any>;
  if (typeof body !== "object" || body === null || Array.isArray(body) || (body.kind !== undefined && body.kind !== "DeleteOptions")) {
    throw badRequest("the body of the request must be a DeleteOptions object");
  }
  for (const [field, [what, ok]] of Object.entries(FIELD_TYPES)) {
    const v = body[field];
    if (v !== undefined && v !== null && !ok(v)) throw badRequest(`DeleteOptions in version "v1" cannot be handled as a DeleteOptions: ${field} must be ${what}`);
  }
  const grace = body.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && grace < 0) throw badRequest(`gracePeriodSeconds: Invalid value: ${grace}: must be a non-negative integer`);
  let policy = body.propagationPolicy ?? undefined;
  const orphan = body.orphanDependents ?? undefined;
  if (orphan !== undefined && policy !== undefined) {
    throw invalidOptions("propagationPolicy", `Invalid value: "${policy}": orphanDependents and deletionPropagation cannot be both set`);
  }
  if (orphan !== undefined) policy = orphan ? "Orphan" : "Background";
  if (policy !== undefined && !POLICIES.includes(policy)) {
    throw invalidOptions("propagationPolicy", `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const dry = Array.isArray(body.dryRun) ? dryRunValue(body.dryRun, "delete") : false;
  return { preconditions: body.preconditions ?? undefined, propagationPolicy: policy, gracePeriodSeconds: grace ?? undefined, dryRun: dry };
}

/** The DeleteOptions a query carries, in the body's shape. */
function fromQuery(p: URLSearchParams): Record<string, unknown> {
  const grace = int64Param(p, "gracePeriodSeconds");
  return {
    gracePeriodSeconds: grace === undefined ? undefined : Number(grace),
    propagationPolicy: p.get("propagationPolicy") ?? undefined,
    orphanDependents: boolParam(p, "orphanDependents"),
    dryRun: p.getAll("dryRun"),
  };
}

export async function del(ctx: HandlerContext): Promise<Response> {
  const { info, rs } = ctx;
  const opts = { ...(await deleteOptions(ctx)), user: ctx.user, warnings: ctx.warnings };
  const { obj, deleted } = await rs.delete(info.namespace, info.name, opts);
  if (!deleted || rs.def.kind === "Pod" || rs.def.kind === "Namespace") return respond(ctx, obj);
  return respond(ctx, {
    kind: "Status", apiVersion: "v1", metadata: {}, status: "Success",
    details: { name: info.name, group: rs.def.group || undefined, kind: rs.def.plural, uid: obj.metadata.uid },
  });
}

export async function deleteCollection(ctx: HandlerContext): Promise<Response> {
  const opts = { ...(await deleteOptions(ctx)), user: ctx.user, warnings: ctx.warnings };
  const out = await ctx.rs.deleteCollection(ctx.info.namespace, listOptions(ctx), opts);
  return respond(ctx, out);
}
