// The service-account issuer discovery document and key set (upstream's ServiceAccountIssuerDiscovery):
// `/.well-known/openid-configuration` and `/openid/v1/jwks`, served when the issuer is an https URL, so
// relying parties outside the cluster can verify the tokens. RBAC's system:service-account-issuer-discovery
// role grants reading them.
import { consola } from "consola";
import type { VerifyKey } from "./serviceaccount-keys.ts";

export const OPENID_CONFIG_PATH = "/.well-known/openid-configuration";
export const JWKS_PATH = "/openid/v1/jwks";
const CACHE_CONTROL = "public, max-age=3600";

/** Why an issuer cannot have a discovery document (upstream's checks), or null when it can. */
function issuerProblem(issuer: string): string | null {
  const u = URL.parse(issuer);
  if (!u || u.protocol !== "https:") return `issuer URL must use https scheme, got: ${issuer}`;
  if (u.search) return `issuer URL may not include a query, got: ${issuer}`;
  if (u.hash) return `issuer URL may not include a fragment, got: ${issuer}`;
  return null;
}

/** A key as a JWK, with go-jose's member order. */
function jwk(k: VerifyKey) {
  const { kty, ...material } = k.key.export({ format: "jwk" });
  return { use: "sig", kty, kid: k.kid, alg: k.alg, ...material };
}

export interface DiscoveryOptions {
  issuer: string;
  /** --service-account-jwks-uri */
  jwksURI?: string;
  keys: VerifyKey[];
  /** host:port this server is reached at: the default jwks_uri's authority. */
  externalAddress: () => string;
}

/**
 * The route answering the two paths, or null (with a warning, as upstream logs it) when the issuer or the
 * jwks URI cannot be used. The documents are built on first use (the port is known by then) and kept.
 */
export function issuerDiscoveryRoute(o: DiscoveryOptions): ((req: Request, url: URL) => Response | undefined) | null {
  const problem = issuerProblem(o.issuer) ?? (o.jwksURI && URL.parse(o.jwksURI)?.protocol !== "https:" ? `jwksURI requires https scheme, parsed as: ${o.jwksURI}` : null);
  if (problem) {
    consola.warn(`service account issuer discovery is not served: ${problem}`);
    return null;
  }
  const keys = { keys: o.keys.map(jwk) };
  let config: string | undefined;
  const keySet = JSON.stringify(keys);
  const reply = (body: string, type: string) => new Response(body, { headers: { "Content-Type": type, "Cache-Control": CACHE_CONTROL } });
  return (req, url) => {
    const path = url.pathname;
    if (path !== OPENID_CONFIG_PATH && path !== JWKS_PATH) return undefined;
    if (req.method !== "GET") return new Response("405: Method Not Allowed", { status: 405 });
    if (path === JWKS_PATH) return reply(keySet, "application/jwk-set+json");
    config ??= JSON.stringify({
      issuer: o.issuer,
      jwks_uri: o.jwksURI ?? `https://${o.externalAddress()}${JWKS_PATH}`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: [...new Set(o.keys.map((k) => k.alg))].sort(),
    });
    return reply(config, "application/json");
  };
}
