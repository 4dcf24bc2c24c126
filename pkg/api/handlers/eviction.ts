// POST pods/NAME/eviction (upstream's EvictionREST): a policy Eviction in, a Status of Success (201) out, or
// the 429 of a disruption budget that allows none now. The registry evicts the pod (../../registry/eviction.ts).
import { EVICTION_SUCCESS, checkEviction, evictPod } from "../../registry/eviction.ts";
import type { Registry } from "../../registry/registry.ts";
import { decodeObject, readBody } from "../negotiate.ts";
import { methodNotAllowed } from "../status.ts";
import { type HandlerContext, dryRun, respond } from "./context.ts";
import { checkDeleteOptions } from "./delete.ts";

export async function evict(ctx: HandlerContext, registry: Registry): Promise<Response> {
  const { info } = ctx;
  if (info.verb !== "create") throw methodNotAllowed("the server does not allow this method on the requested resource");
  const body = decodeObject(await readBody(ctx.req), ctx.req.headers.get("content-type"), undefined, "Eviction");
  const eviction = checkEviction(body, info.name);
  const options = checkDeleteOptions(eviction.deleteOptions ?? {});
  // a dry run asked for in the query or in the Eviction's DeleteOptions (upstream's propagateDryRun)
  options.dryRun = options.dryRun || dryRun(ctx);
  await evictPod(registry.lookup("", "v1", "pods")!, registry.lookup("policy", "v1", "poddisruptionbudgets")!, info.namespace, info.name, options);
  return respond(ctx, EVICTION_SUCCESS, 201);
}
