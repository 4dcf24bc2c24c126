// Builds the authentication and authorization filters from the server's options (the flags of §5.1).
import { type Attributes, type Authorizer, AuthorizerChain, alwaysAllow, alwaysDeny } from "./authorize.ts";
import { type Authenticator, AuthenticatorChain } from "./authenticate.ts";
import { bearerAuthenticator, webSocketProtocolAuthenticator } from "./bearer.ts";
import { bootstrapTokens } from "./bootstrap.ts";
import type { AuthFilters } from "./filter.ts";
import { OidcAuthenticator } from "./oidc.ts";
import type { OidcOptions } from "./oidc-options.ts";
import { type TokenAuthenticator, TokenUnion, audienceAgnostic } from "./token.ts";
import { readTokenFile, staticTokens } from "./tokenfile.ts";
import { MASTERS } from "./user.ts";
import { type TokenWebhookOptions, tokenWebhook } from "./token-webhook.ts";
import { loadWebhookConfig } from "./webhook-client.ts";
import type { Registry } from "../registry/registry.ts";
import { privilegedGroups } from "./privileged.ts";
import type { Rbac } from "./rbac/service.ts";
import { AbacAuthorizer } from "./abac.ts";
import { WebhookAuthorizer, type WebhookAuthzOptions } from "./webhook-authz.ts";
import { NodeAuthorizer } from "./node-authz/authorizer.ts";
import { CLUSTER_ROLES } from "./rbac/bootstrap/cluster-roles.ts";
import { ruleAllows, type PolicyRule } from "./rbac/rules.ts";
import type { ServiceAccountIssuer } from "./serviceaccount.ts";
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
  /** The token of the server's own loopback client (its in-process controllers): system:apiserver in system:masters. */
  loopbackToken?: string;
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
  tokens: TokenOptions;
}

/** The CA files client certificates are verified against; when there are any, the server reads certificates. */
export function clientCAFiles(o: AuthOptions): string[] {
  return [o.x509?.requestHeader?.clientCAFile, o.x509?.clientCAFile].filter((f): f is string => !!f);
}

/** Bearer token kinds of their own (service-account and OIDC tokens have theirs). */
export interface TokenOptions {
  /** --token-auth-file */
  tokenAuthFile?: string;
  /** --enable-bootstrap-token-auth */
  bootstrap: boolean;
  /** --authentication-token-webhook-config-file, -cache-ttl, -version */
  webhook?: TokenWebhookOptions;
}

/** The audiences a request's tokens must be for (--api-audiences); none: tokens are not audience-checked. */
const apiAudiences = (o: AuthOptions): string[] => o.serviceAccounts?.audiences ?? [];

/** The bearer token kinds in upstream's order (the loopback token, token file, service accounts, bootstrap, OIDC, webhook). */
function tokenAuthenticators(o: AuthOptions, deps: AuthDeps): TokenAuthenticator[] {
  const t = o.tokens, auds = apiAudiences(o);
  const kinds: TokenAuthenticator[] = [];
  if (deps.loopbackToken) kinds.push(audienceAgnostic(auds, staticTokens([{ token: deps.loopbackToken, user: { name: "system:apiserver", uid: crypto.randomUUID(), groups: [MASTERS] } }])));
  if (t.tokenAuthFile) kinds.push(audienceAgnostic(auds, staticTokens(readTokenFile(t.tokenAuthFile))));
  if (deps.serviceAccounts) kinds.push(deps.serviceAccounts.authenticator);
  if (t.bootstrap) kinds.push(audienceAgnostic(auds, bootstrapTokens(deps.registry)));
  if (o.oidc) kinds.push(audienceAgnostic(auds, OidcAuthenticator.start(o.oidc)));
  if (t.webhook) kinds.push(tokenWebhook(loadWebhookConfig(t.webhook.configFile), t.webhook, auds));
  return kinds;
}

/** The authenticators in upstream's order (x509, request headers, tokens); each is added by its own flag. */
function authenticators(o: AuthOptions, tokens: TokenUnion): Authenticator[] {
  const out: Authenticator[] = [];
  const rh = o.x509?.requestHeader;
  if (rh) out.push(new RequestHeaderAuthenticator(rh, new ChainVerifier(readCABundle(rh.clientCAFile))));
  if (o.x509?.clientCAFile) out.push(new X509Authenticator(new ChainVerifier(readCABundle(o.x509.clientCAFile))));
  if (tokens.kinds.length) out.push(bearerAuthenticator(tokens, apiAudiences(o)), webSocketProtocolAuthenticator(tokens, apiAudiences(o)));
  return out;
}

function authorizer(mode: AuthorizationMode, o: AuthOptions, deps: AuthDeps): Authorizer {
  switch (mode) {
    case "AlwaysAllow": return alwaysAllow;
    case "AlwaysDeny": return alwaysDeny;
    case "ABAC": return AbacAuthorizer.fromFile(o.authzFiles!.policyFile!);
    case "Webhook": return WebhookAuthorizer.fromOptions(o.authzFiles!.webhook!);
    case "Node": return new NodeAuthorizer(deps.registry, systemNodeRules);
    case "RBAC":
      if (!deps.rbac) throw new Error("authorization mode RBAC needs the RBAC index");
      return deps.rbac.authorizer;
  }
}

/** The system:node role's rules, which upstream's Node authorizer evaluates itself (their binding has no subjects). */
const NODE_RULES: PolicyRule[] = CLUSTER_ROLES.find((r) => r.metadata.name === "system:node")!.rules;
const systemNodeRules = (a: Attributes) => NODE_RULES.some((rule) => ruleAllows(a, rule));

export function buildAuthFilters(o: AuthOptions, deps: AuthDeps): AuthFilters {
  const tokens = new TokenUnion(tokenAuthenticators(o, deps));
  return {
    authn: new AuthenticatorChain(authenticators(o, tokens), o.anonymous),
    tokens, apiAudiences: apiAudiences(o),
    // system:masters is allowed in front of every mode, as upstream puts its privileged-group authorizer
    authz: new AuthorizerChain([privilegedGroups, ...o.authorizationModes.map((m) => authorizer(m, o, deps))]),
    alwaysAllowPaths: o.alwaysAllowPaths,
  };
}
