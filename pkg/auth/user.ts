// Who made a request, as every authenticator reports it and every authorizer reads it (upstream's user.Info).

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const AUTHENTICATED = "system:authenticated";
export const UNAUTHENTICATED = "system:unauthenticated";
export const ANONYMOUS: UserInfo = { name: "system:anonymous", groups: [UNAUTHENTICATED] };
/** Members of this group may do anything: RBAC and every other authorizer chain allow them first. */
export const MASTERS = "system:masters";

/** The answer for each user object an authenticator keeps handing out (a static token's, a cached one's). */
const withGroup = new WeakMap<UserInfo, UserInfo>();

/**
 * Every user an authenticator vouched for is also in system:authenticated (once). The same object in
 * gives the same object out, so what is derived from a user (RBAC's subject keys) is derived once.
 */
export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  if (u.groups.includes(AUTHENTICATED) || u.groups.includes(UNAUTHENTICATED)) return u;
  let out = withGroup.get(u);
  if (!out) withGroup.set(u, (out = { ...u, groups: [...u.groups, AUTHENTICATED] }));
  return out;
}
