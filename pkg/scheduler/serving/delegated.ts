// Delegated authentication and authorization of the secure port, as upstream's delegating options build
// them: client certificates (--client-ca-file) and the front proxy (--requestheader-*), each looked up in
// kube-system/extension-apiserver-authentication when not given; bearer tokens by TokenReview and every
// decision by SubjectAccessReview to the API server, both cached; anonymous for requests with no
// credential. Without an authorization kubeconfig only system:masters and the always-allowed paths pass.
import { readFileSync } from "node:fs";
import { type Authenticator, AuthenticatorChain } from "../../auth/authenticate.ts";
import { type Authorizer, AuthorizerChain, NO_OPINION, ALLOW } from "../../auth/authorize.ts";
import { bearerAuthenticator, webSocketProtocolAuthenticator } from "../../auth/bearer.ts";
import { alwaysAllowed } from "../../auth/filter.ts";
import { privilegedGroups } from "../../auth/privileged.ts";
import { RequestHeaderAuthenticator } from "../../auth/requestheader.ts";
import { tokenWebhook } from "../../auth/token-webhook.ts";
import { TokenUnion } from "../../auth/token.ts";
import { WebhookAuthorizer } from "../../auth/webhook-authz.ts";
import { type WebhookTarget, loadWebhookConfig } from "../../auth/webhook-client.ts";
import { ChainVerifier, X509Authenticator, parseCABundle } from "../../auth/x509.ts";
import { isNotFound } from "../../client/client.ts";
import { loadClientConfig } from "../../client/kubeconfig.ts";
import { Transport } from "../../client/transport.ts";
import type { DelegatedAuthentication, DelegatedAuthorization } from "./options.ts";

const AUTH_CONFIGMAP = "kube-system/extension-apiserver-authentication";

export interface Delegation {
  authn: AuthenticatorChain;
  authz: AuthorizerChain;
  /** The CA bundles (PEM) client certificates may come from: when there are any, the port reads certificates. */
  clientCAs: string[];
  /** What the operator should know (a lookup that failed and was tolerated), one line each. */
  warnings: string[];
}

type FrontProxy = DelegatedAuthentication["requestHeader"] & { ca: string };

/** The CAs and front-proxy settings the cluster publishes (what the API server trusts). */
async function lookup(kubeconfig: string): Promise<{ clientCA?: string; frontProxy?: FrontProxy }> {
  const t = new Transport(await loadClientConfig({ kubeconfig }));
  let cm: { data?: Record<string, string> };
  try {
    cm = await t.json(`/api/v1/namespaces/${AUTH_CONFIGMAP.replace("/", "/configmaps/")}`);
  } catch (e) {
    if (isNotFound(e)) return {};
    throw e;
  }
  const d = cm.data ?? {};
  const listOf = (k: string) => (d[k] ? (JSON.parse(d[k]) as string[]) : []);
  return {
    clientCA: d["client-ca-file"] || undefined,
    frontProxy: d["requestheader-client-ca-file"] ? {
      ca: d["requestheader-client-ca-file"],
      clientCAFile: AUTH_CONFIGMAP,
      allowedNames: listOf("requestheader-allowed-names"),
      usernameHeaders: listOf("requestheader-username-headers"),
      groupHeaders: listOf("requestheader-group-headers"),
      extraHeaderPrefixes: listOf("requestheader-extra-headers-prefix"),
    } : undefined,
  };
}

/** A kubeconfig's server as the target of one review resource. */
function reviewTarget(kubeconfig: string, path: string): WebhookTarget {
  const t = loadWebhookConfig(kubeconfig);
  return { ...t, url: `${t.url.replace(/\/+$/, "")}${path}` };
}

/** --authorization-always-allow-paths as an authorizer: those non-resource paths are allowed to anyone. */
const pathAuthorizer = (paths: string[]): Authorizer => ({
  authorize: (a) => (!a.isResourceRequest && alwaysAllowed(paths, a.path) ? ALLOW : NO_OPINION),
});

export async function delegation(n: DelegatedAuthentication, z: DelegatedAuthorization): Promise<Delegation> {
  const warnings: string[] = [];
  let clientCA = n.clientCAFile ? readFileSync(n.clientCAFile, "utf8") : undefined;
  let frontProxy: FrontProxy | undefined = n.requestHeader.clientCAFile ? { ...n.requestHeader, ca: readFileSync(n.requestHeader.clientCAFile, "utf8") } : undefined;
  if (n.kubeconfig && !n.skipLookup && (!clientCA || !frontProxy)) {
    try {
      const found = await lookup(n.kubeconfig);
      clientCA ??= found.clientCA;
      frontProxy ??= found.frontProxy;
    } catch (e) {
      if (!n.tolerateLookupFailure) throw new Error(`unable to load configmap based request-header-client-ca-file: ${(e as Error).message}`);
      warnings.push(`Error looking up in-cluster authentication configuration: ${(e as Error).message}; continuing without it (this may treat all requests as anonymous; --authentication-tolerate-lookup-failure=false makes it fatal)`);
    }
  }

  const authenticators: Authenticator[] = [];
  if (frontProxy) authenticators.push(new RequestHeaderAuthenticator({ ...frontProxy, clientCAFile: frontProxy.clientCAFile ?? AUTH_CONFIGMAP }, new ChainVerifier(parseCABundle(frontProxy.ca, frontProxy.clientCAFile ?? AUTH_CONFIGMAP))));
  if (clientCA) authenticators.push(new X509Authenticator(new ChainVerifier(parseCABundle(clientCA, n.clientCAFile ?? AUTH_CONFIGMAP))));
  if (n.kubeconfig) {
    const tokens = new TokenUnion([tokenWebhook(reviewTarget(n.kubeconfig, "/apis/authentication.k8s.io/v1/tokenreviews"), { configFile: n.kubeconfig, cacheTtlMs: n.cacheTtlMs, version: "v1" }, [])]);
    authenticators.push(bearerAuthenticator(tokens, []), webSocketProtocolAuthenticator(tokens, []));
  }

  const authorizers: Authorizer[] = [privilegedGroups, pathAuthorizer(z.alwaysAllowPaths)];
  if (z.kubeconfig) {
    const target = reviewTarget(z.kubeconfig, "/apis/authorization.k8s.io/v1/subjectaccessreviews");
    authorizers.push(new WebhookAuthorizer(target, { configFile: z.kubeconfig, version: "v1", authorizedTTLMs: z.authorizedTtlMs, unauthorizedTTLMs: z.unauthorizedTtlMs }));
  }
  return {
    authn: new AuthenticatorChain(authenticators, true),
    authz: new AuthorizerChain(authorizers),
    clientCAs: [frontProxy?.ca, clientCA].filter((c): c is string => !!c),
    warnings,
  };
}
