// Builds the authentication and authorization filters from the server's options (the flags of §5.1).
import { type Authorizer, AuthorizerChain, alwaysAllow, alwaysDeny } from "./authorize.ts";
import { type Authenticator, AuthenticatorChain } from "./authenticate.ts";
import type { AuthFilters } from "./filter.ts";
import type { Registry } from "../registry/registry.ts";
import { privilegedGroups } from "./privileged.ts";
import type { Rbac } from "./rbac/service.ts";

/** What authenticators and authorizers read from the server itself (Secrets, ServiceAccounts, RBAC objects). */
export interface AuthDeps {
  registry: Registry;
  /** The RBAC index and authorizer (the RBAC mode). */
  rbac?: Rbac;
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
}

export const DEFAULT_AUTH: AuthOptions = { anonymous: true, authorizationModes: ["AlwaysAllow"], alwaysAllowPaths: ["/healthz", "/readyz", "/livez"] };

/** The authenticators in upstream's order (x509, request headers, tokens); each is added by its own flag. */
function authenticators(_o: AuthOptions, _deps: AuthDeps): Authenticator[] {
  return [];
}

function authorizer(mode: AuthorizationMode, _o: AuthOptions, deps: AuthDeps): Authorizer {
  switch (mode) {
    case "AlwaysAllow": return alwaysAllow;
    case "AlwaysDeny": return alwaysDeny;
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
