// POST serviceaccounts/{name}/token: an authentication.k8s.io/v1 TokenRequest in, the same with a signed
// bound token in status out (upstream's TokenREST; `kubectl create token`). Nothing is stored.
import { type HandlerContext, respond } from "../api/handlers/context.ts";
import { supportsAs } from "../api/handlers/transform.ts";
import { decodeObject, negotiate, readBody } from "../api/negotiate.ts";
import { badRequest, conflict, invalid, methodNotAllowed } from "../api/status.ts";
import { canEncode } from "../protobuf/index.ts";
import type { Registry } from "../registry/registry.ts";
import type { Obj, ResourceDef } from "../registry/types.ts";
import { Errs } from "../validation/field.ts";
import { boundClaims } from "./serviceaccount-claims.ts";
import type { ServiceAccountIssuer } from "./serviceaccount.ts";

const GROUP = "authentication.k8s.io";
const TOKEN_REQUEST: ResourceDef = { group: GROUP, version: "v1", kind: "TokenRequest", plural: "tokenrequests", singular: "tokenrequest", namespaced: true };

const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** A pod-bound token asked for this long is the kubelet's projected token: with extension on it lasts a year. */
const WARN_ONLY_EXPIRATION_SECONDS = 3607;
const EXTENDED_EXPIRATION_SECONDS = 365 * 24 * 3600;

function validate(spec: Obj) {
  const e = new Errs();
  const exp = spec.expirationSeconds;
  if (exp < MIN_EXPIRATION_SECONDS) e.invalid("spec.expirationSeconds", exp, "may not specify a duration less than 10 minutes");
  if (exp > MAX_EXPIRATION_SECONDS) e.invalid("spec.expirationSeconds", exp, "may not specify a duration larger than 2^32 seconds");
  if (e.causes.length) throw invalid({ group: GROUP, resource: "tokenrequests", kind: "TokenRequest" }, "", e.causes);
}

/** The Pod or Secret a token is to be bound to (it must exist, with the uid the reference names). */
async function boundObject(registry: Registry, ns: string, account: string, ref: Obj): Promise<{ pod?: Obj; secret?: Obj }> {
  const apiVersion = String(ref.apiVersion ?? "");
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const resource = group === "" && ref.kind === "Pod" ? "pods" : group === "" && ref.kind === "Secret" ? "secrets" : undefined;
  if (!resource) throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ""}`);
  const obj = await registry.lookup("", "v1", resource)!.get(ns, String(ref.name ?? ""));
  if (resource === "pods" && obj.spec?.serviceAccountName !== account) {
    throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(account)} to pod running with different serviceaccount name.`);
  }
  if (ref.uid && ref.uid !== obj.metadata.uid) {
    throw conflict({ group: "", resource: String(ref.kind) }, String(ref.name), `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  return resource === "pods" ? { pod: obj } : { secret: obj };
}

export async function createTokenRequest(ctx: HandlerContext, issuer: ServiceAccountIssuer, registry: Registry): Promise<Response> {
  if (ctx.info.verb !== "create") throw methodNotAllowed("the server does not allow this method on the requested resource");
  const { namespace: ns, name } = ctx.info;
  const accounts = registry.lookup("", "v1", "serviceaccounts")!;
  const rep = negotiate(ctx.req.headers.get("accept"), supportsAs("create"), canEncode(`${GROUP}/v1`, "TokenRequest"));
  const raw = decodeObject(await readBody(ctx.req), ctx.req.headers.get("content-type"), undefined, "TokenRequest");
  const req = accounts.checkBody(raw, ns, undefined, TOKEN_REQUEST);
  const spec: Obj = { ...(req.spec ?? {}) };
  spec.expirationSeconds ??= DEFAULT_EXPIRATION_SECONDS;
  validate(spec);

  const sa = await accounts.get(ns, name);
  const bound = spec.boundObjectRef ? await boundObject(registry, ns, name, spec.boundObjectRef) : {};
  const o = issuer.o;
  if (o.maxExpirationSeconds > 0 && spec.expirationSeconds > o.maxExpirationSeconds) spec.expirationSeconds = o.maxExpirationSeconds;
  if (!spec.audiences?.length) spec.audiences = o.audiences;

  const now = Math.floor(Date.now() / 1000);
  let lifetime = spec.expirationSeconds as number, warnAfter: number | undefined;
  if (o.extendExpiration && bound.pod && lifetime === WARN_ONLY_EXPIRATION_SECONDS) {
    warnAfter = now + lifetime;
    lifetime = EXTENDED_EXPIRATION_SECONDS;
  }
  const token = await issuer.sign(boundClaims({ issuer: issuer.issuer, audiences: spec.audiences, sa, ...bound, now, expirationSeconds: lifetime, warnAfter }));
  const expirationTimestamp = new Date((now + spec.expirationSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const out = {
    kind: req.kind, apiVersion: req.apiVersion, metadata: { ...req.metadata, creationTimestamp: null },
    spec: { audiences: spec.audiences, expirationSeconds: spec.expirationSeconds, ...(spec.boundObjectRef ? { boundObjectRef: spec.boundObjectRef } : {}) },
    status: { token, expirationTimestamp },
  };
  return respond({ ...ctx, rep }, out, 201);
}
