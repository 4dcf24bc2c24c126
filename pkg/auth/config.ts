// Builds the authentication and authorization filters from the server's options (the flags of §5.1).
import { type Authorizer, AuthorizerChain, alwaysAllow, alwaysDeny } from "./authorize.ts";
import { type Authenticator, AuthenticatorChain } from "./authenticate.ts";
import type { AuthFilters } from "./filter.ts";
import { OidcAuthenticator, oidcBearerAuthenticator } from "./oidc.ts";
import type { OidcOptions } from "./oidc-options.ts";
import type { Registry } from "../registry/registry.ts";
import { privilegedGroups } from "./privileged.ts";
import type { Rbac } from "./rbac/service.ts";
import { AbacAuthorizer } from "./abac.ts";
import { WebhookAuthorizer, type WebhookAuthzOptions } from "./webhook-authz.ts";
import { NodeAuthorizer } from "./node-authz/authorizer.ts";
import { serviceAccountBearer, type ServiceAccountIssuer } from "./serviceaccount.ts";
import type { ServiceAccountOptions } from "./serviceaccount-options.ts";
import { RequestHeaderAuthenticator, type RequestHeaderOptions } from "./requestheader.ts";
import { ChainVerifier, X509Authenticator, readCABundle } from "./x509.ts";

/** What authenticators and authorizers read from the server itself (Secrets, ServiceAccounts, RBAC objects). */
export interface AuthDeps {
  registry: Registry;
  /** The RBAC index and authorizer (the RBAC mode). */
  rbac?: Rbac;
  /** The service-account token issuer, built from AuthOptions.serviceAccounts. */
  serviceAccounts?: ServiceAccountIssuer;
}

export const AUTHORIZATION_MODES = ["AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node"] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export interface AuthOptions {
  /** --anonymous-auth */
  anonymous: boolean;
  /** --authorization-mode, in order */
  authorizationModes: AuthorizationMode[];
  /** --authorization-always-allow-paths */
  alwaysAllowPaths: string[];
  /** The files of the ABAC and Webhook modes: --authorization-policy-file, --authorization-webhook-* */
  authzFiles?: { policyFile?: string; webhook?: WebhookAuthzOptions };
  /** --oidc-*: set when --oidc-issuer-url is */
  oidc?: OidcOptions;
  /** The service-account token flags (absent: no service-account tokens). */
  serviceAccounts?: ServiceAccountOptions;
  /** --client-ca-file and the front proxy's --requestheader-* */
  x509?: { clientCAFile?: string; requestHeader?: RequestHeaderOptions };
}

/** The CA files client certificates are verified against; when there are any, the server reads certificates. */
export function clientCAFiles(o: AuthOptions): string[] {
  return [o.x509?.requestHeader?.clientCAFile, o.x509?.clientCAFile].filter((f): f is string => !!f);
}

export const DEFAULT_AUTH: AuthOptions = { anonymous: true, authorizationModes: ["AlwaysAllow"], alwaysAllowPaths: ["/healthz", "/readyz", "/livez"] };

/** The authenticators in upstream's order (x509, request headers, tokens); each is added by its own flag. */
function authenticators(o: AuthOptions, deps: AuthDeps): Authenticator[] {
  const out: Authenticator[] = [];
  const rh = o.x509?.requestHeader;
  if (rh) out.push(new RequestHeaderAuthenticator(rh, new ChainVerifier(readCABundle(rh.clientCAFile))));
  if (o.x509?.clientCAFile) out.push(new X509Authenticator(new ChainVerifier(readCABundle(o.x509.clientCAFile))));
  // Each its own bearer adapter until the token authenticators share one union.
  if (deps.serviceAccounts) out.push(serviceAccountBearer(deps.serviceAccounts.authenticator));
  if (o.oidc) out.push(oidcBearerAuthenticator(OidcAuthenticator.start(o.oidc)));
  return out;
}

function authorizer(mode: AuthorizationMode, o: AuthOptions, deps: AuthDeps): Authorizer {
  switch (mode) {
    case "AlwaysAllow": return alwaysAllow;
    case "AlwaysDeny": return alwaysDeny;
    case "ABAC": return AbacAuthorizer.fromFile(o.authzFiles!.policyFile!);
    case "Webhook": return WebhookAuthorizer.fromOptions(o.authzFiles!.webhook!);
    case "Node": return new NodeAuthorizer(deps.registry);
    case "RBAC":
      if (!deps.rbac) throw new Error("authorization mode RBAC needs the RBAC index");
      return deps.rbac.authorizer;
    default: throw new Error(`authorization mode ${mode} is not available yet`);
  }
}

export function buildAuthFilters(o: AuthOptions, deps: AuthDeps): AuthFilters {
  return {
    authn: new AuthenticatorChain(authenticators(o, deps), o.anonymous),
    // system:masters is allowed in front of every mode, as upstream puts its privileged-group authorizer
    authz: new AuthorizerChain([privilegedGroups, ...o.authorizationModes.map((m) => authorizer(m, o, deps))]),
    alwaysAllowPaths: o.alwaysAllowPaths,
  };
}
