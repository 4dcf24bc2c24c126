// Members of system:masters may do anything: upstream puts this authorizer in front of every
// --authorization-mode chain (the API server's own loopback identity is in that group).
import { ALLOW, type Authorizer, NO_OPINION } from "./authorize.ts";
import { MASTERS } from "./user.ts";

export const privilegedGroups: Authorizer = { authorize: (a) => (a.user.groups.includes(MASTERS) ? ALLOW : NO_OPINION) };
