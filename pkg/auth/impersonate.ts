// Impersonation: Impersonate-User, -Group, -Uid and -Extra-<key> headers make a request act as another
// user, once the caller may `impersonate` each of them (users, groups and service accounts in the core
// group; uids and userextras/<key> in authentication.k8s.io). Upstream's filter, between authentication
// and authorization.
import { badRequest } from "../api/status.ts";
import type { Attributes, AuthorizerChain } from "./authorize.ts";
import { forbiddenStatus } from "./filter.ts";
import { groupsOf as serviceAccountGroups, splitUsername } from "./serviceaccount-claims.ts";
import { ANONYMOUS, AUTHENTICATED, UNAUTHENTICATED, type UserInfo } from "./user.ts";

const EXTRA_PREFIX = "impersonate-extra-";

/** One thing asked for, as the authorizers see it. */
type Ask = Pick<Attributes, "apiGroup" | "apiVersion" | "resource" | "subresource" | "namespace" | "name">;
const ask = (resource: string, name: string, more: Partial<Ask> = {}): Ask =>
  ({ apiGroup: "", apiVersion: "v1", resource, subresource: "", namespace: "", name, ...more });
const authnAsk = (resource: string, name: string, subresource = "") =>
  ask(resource, name, { apiGroup: "authentication.k8s.io", subresource });

/** Header values as separate entries (fetch's Headers joins repeated headers with ", "). */
const values = (v: string | null) => (v === null ? [] : v.split(", "));

function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** The user a request acts as: `user` itself without impersonation headers; throws the 403 of a refused one. */
export async function impersonate(authz: AuthorizerChain, user: UserInfo, headers: Headers): Promise<UserInfo> {
  const asks: Ask[] = [];
  const name = headers.get("impersonate-user") ?? "";
  const sa = name ? splitUsername(name) : null;
  if (sa) asks.push(ask("serviceaccounts", sa[1], { namespace: sa[0] }));
  else if (name) asks.push(ask("users", name));
  const groupsAsked = values(headers.get("impersonate-group"));
  for (const g of groupsAsked) asks.push(ask("groups", g));
  const extra: Record<string, string[]> = {};
  // names only: reading every header's value on every request costs more than the rare match
  for (const header of headers.keys()) {
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    const key = unescapeKey(header.slice(EXTRA_PREFIX.length));
    for (const value of values(headers.get(header))) {
      asks.push(authnAsk("userextras", value, key));
      (extra[key] ??= []).push(value);
    }
  }
  const uid = headers.get("impersonate-uid") ?? "";
  if (uid) asks.push(authnAsk("uids", uid));
  if (asks.length === 0) return user;
  if (!name) throw badRequest("requested Impersonate-Group, Impersonate-Extra-* or Impersonate-Uid without impersonating a user");

  for (const a of asks) {
    const attrs: Attributes = { user, verb: "impersonate", isResourceRequest: true, path: "", ...a };
    const d = await authz.authorize(attrs);
    if (d.decision !== "allow") throw forbiddenStatus(attrs, d.reason);
  }

  // Groups named are the whole answer; a service account without them gets its own.
  const groups = groupsAsked.length ? [...groupsAsked] : sa ? serviceAccountGroups(sa[0]) : [];
  if (name === ANONYMOUS.name) {
    if (!groups.includes(UNAUTHENTICATED)) groups.push(UNAUTHENTICATED);
  } else if (!groups.includes(AUTHENTICATED) && !groups.includes(UNAUTHENTICATED)) {
    groups.push(AUTHENTICATED);
  }
  return { name, groups, ...(uid ? { uid } : {}), extra };
}
