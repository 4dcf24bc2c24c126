// POST pods/NAME/binding and POST bindings (upstream's BindingREST and LegacyBindingREST): a v1 Binding
// in, a Status of Success (201) out. The registry binds the pod (../../registry/binding.ts).
import { BINDING_SUCCESS, bindPod } from "../../registry/binding.ts";
import type { Registry } from "../../registry/registry.ts";
import { decodeObject, readBody } from "../negotiate.ts";
import { badRequest, methodNotAllowed } from "../status.ts";
import { type HandlerContext, bodyCheck, dryRun, fieldValidation, respond } from "./context.ts";

export async function bind(ctx: HandlerContext, registry: Registry): Promise<Response> {
  const { info } = ctx;
  // the legacy collection takes the pod's name from the Binding; the subresource from the URL
  const legacy = !info.subresource;
  if (info.verb !== "create" || (legacy && info.name)) throw methodNotAllowed("the server does not allow this method on the requested resource");
  const { fields, repeats } = bodyCheck(fieldValidation(ctx));
  const body = decodeObject(await readBody(ctx.req), ctx.req.headers.get("content-type"), repeats, "Binding");
  const binding = registry.lookup("", "v1", "bindings")!.checkBody(body, info.namespace, fields);
  if (!legacy && (binding.metadata.name ?? "") !== info.name) throw badRequest("name in URL does not match name in Binding object");
  await bindPod(registry.lookup("", "v1", "pods")!, info.namespace, binding, dryRun(ctx));
  ctx.warnings.push(...fields.warnings);
  return respond(ctx, BINDING_SUCCESS, 201);
}
