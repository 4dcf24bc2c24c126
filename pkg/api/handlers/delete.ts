// DELETE one object or a collection, with DeleteOptions from the body or the query.
import type { DeleteOptions } from "../../registry/generic.ts";
import { parseText, readBody, text } from "../negotiate.ts";
import { StatusError, badRequest } from "../status.ts";
import { type HandlerContext, dryRun, dryRunValue, respond } from "./context.ts";
import { listOptions } from "./list.ts";

const POLICIES = ["Orphan", "Background", "Foreground"];

/** DeleteOptions that fail validation are a 422, as upstream's ValidateDeleteOptions makes them. */
const invalidOptions = (field: string, message: string) =>
  new StatusError(422, "Invalid", `DeleteOptions.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    group: "meta.k8s.io", kind: "DeleteOptions", causes: [{ reason: "FieldValueNotSupported", field, message }],
  });

async function deleteOptions(ctx: HandlerContext): Promise<DeleteOptions> {
  const raw = text(await readBody(ctx.req)).trim();
  const body = (raw ? parseText(raw, !raw.startsWith("{")) : {}) as Record<string, any>;
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest("the body of the request must be a DeleteOptions object");
  const p = ctx.url.searchParams;
  const grace = body.gracePeriodSeconds ?? (p.has("gracePeriodSeconds") ? Number(p.get("gracePeriodSeconds")) : undefined);
  if (grace !== undefined && (!Number.isInteger(grace) || grace < 0)) throw badRequest(`gracePeriodSeconds: Invalid value: ${grace}: must be a non-negative integer`);
  let policy = body.propagationPolicy ?? p.get("propagationPolicy") ?? undefined;
  const orphan = body.orphanDependents ?? (p.has("orphanDependents") ? p.get("orphanDependents") === "true" : undefined);
  if (orphan !== undefined && policy !== undefined) {
    throw invalidOptions("propagationPolicy", `Invalid value: "${policy}": orphanDependents and deletionPropagation cannot be both set`);
  }
  if (orphan !== undefined) policy = orphan ? "Orphan" : "Background";
  if (policy !== undefined && !POLICIES.includes(policy)) {
    throw invalidOptions("propagationPolicy", `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const dry = Array.isArray(body.dryRun) && body.dryRun.length ? dryRunValue(body.dryRun, "delete") : dryRun(ctx);
  return { preconditions: body.preconditions, propagationPolicy: policy, gracePeriodSeconds: grace, dryRun: dry };
}

export async function del(ctx: HandlerContext): Promise<Response> {
  const { info, rs } = ctx;
  const opts = await deleteOptions(ctx);
  const { obj, deleted } = await rs.delete(info.namespace, info.name, opts);
  if (!deleted || rs.def.kind === "Pod" || rs.def.kind === "Namespace") return respond(ctx, obj);
  return respond(ctx, {
    kind: "Status", apiVersion: "v1", metadata: {}, status: "Success",
    details: { name: info.name, group: rs.def.group || undefined, kind: rs.def.plural, uid: obj.metadata.uid },
  });
}

export async function deleteCollection(ctx: HandlerContext): Promise<Response> {
  const opts = await deleteOptions(ctx);
  const out = await ctx.rs.deleteCollection(ctx.info.namespace, listOptions(ctx), opts);
  return respond(ctx, out);
}
