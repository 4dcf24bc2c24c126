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

/** Every user an authenticator vouched for is also in system:authenticated (once). */
export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  if (u.groups.includes(AUTHENTICATED) || u.groups.includes(UNAUTHENTICATED)) return u;
  return { ...u, groups: [...u.groups, AUTHENTICATED] };
}
