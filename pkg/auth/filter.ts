// The authentication and authorization filters of the request path: who calls (401 when a credential
// fails), as whom (impersonation headers, each authorized), then may they (403 in upstream's words).
// Paths in --authorization-always-allow-paths skip authorization, not authentication.
import type { RequestInfo } from "../api/requestinfo.ts";
import { StatusError, internal } from "../api/status.ts";
import { type Attributes, type AuthorizerChain, forbiddenMessage } from "./authorize.ts";
import { type AuthenticatorChain, AuthenticationError, type Credentials } from "./authenticate.ts";
import { impersonate } from "./impersonate.ts";
import type { TokenUnion } from "./token.ts";
import type { UserInfo } from "./user.ts";

export interface AuthFilters {
  authn: AuthenticatorChain;
  authz: AuthorizerChain;
  /** Non-resource paths every authenticated or anonymous caller may reach; a trailing `*` is a prefix. */
  alwaysAllowPaths: string[];
  /** The bearer token kinds (TokenReview asks them too), and the audiences a request's tokens are for. */
  tokens: TokenUnion;
  apiAudiences: string[];
}

export const unauthorized = () => new StatusError(401, "Unauthorized", "Unauthorized", undefined);

/** What a request asks, for the authorizers. */
export function attributesOf(user: UserInfo, info: RequestInfo): Attributes {
  return {
    user, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path,
    apiGroup: info.group, apiVersion: info.version, namespace: info.namespace,
    resource: info.resource, subresource: info.subresource, name: info.name,
  };
}

/** A 403 as upstream's Forbidden responder builds it: `pods "x" is forbidden: User "bob" cannot ...`. */
export function forbiddenStatus(a: Attributes, reason = ""): StatusError {
  const msg = forbiddenMessage(a) + (reason ? `: ${reason}` : "");
  if (!a.isResourceRequest) return new StatusError(403, "Forbidden", `forbidden: ${msg}`, {});
  const q = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  const what = a.name ? `${q} ${JSON.stringify(a.name)}` : q;
  return new StatusError(403, "Forbidden", `${what} is forbidden: ${msg}`, { name: a.name || undefined, group: a.apiGroup || undefined, kind: a.resource });
}

/** Whether a non-resource path is one of --authorization-always-allow-paths (a trailing `*` is a prefix). */
export function alwaysAllowed(paths: string[], path: string): boolean {
  return paths.some((p) => (p.endsWith("*") ? path.startsWith(p.slice(0, -1)) : p === path));
}

/** What the audit filter, which sits between authentication and authorization, is told as they happen. */
export interface AuthSteps {
  authenticated(user: UserInfo): void | Promise<void>;
  impersonated(user: UserInfo): void;
  authorized(decision: "allow" | "forbid", reason: string): void;
}

/** The caller of a request that may go on; throws the 401 or 403 otherwise. */
export async function authenticateAndAuthorize(f: AuthFilters, info: RequestInfo, creds: Credentials, steps?: AuthSteps): Promise<UserInfo> {
  let user: UserInfo;
  try {
    user = (await f.authn.authenticate(creds)).user;
  } catch (e) {
    if (e instanceof AuthenticationError) throw unauthorized();
    throw e;
  }
  await steps?.authenticated(user);
  const as = await impersonate(f.authz, user, creds.headers);
  if (as !== user) steps?.impersonated(as);
  user = as;
  if (!info.isResourceRequest && alwaysAllowed(f.alwaysAllowPaths, info.path)) return user;
  const attrs = attributesOf(user, info);
  const d = await f.authz.authorize(attrs);
  steps?.authorized(d.decision === "allow" ? "allow" : "forbid", d.reason ?? "");
  if (d.decision === "allow") return user;
  // an authorizer that failed (and none allowed) is the server's fault, not the caller's
  if (d.error) throw internal(d.error);
  throw forbiddenStatus(attrs, d.reason);
}
