// What a service-account token says, as upstream's tokens say it: a bound token (TokenRequest) names its
// issuer, audiences, lifetime and the ServiceAccount, Pod or Secret it is tied to by uid; a legacy token
// (a Secret's) names the ServiceAccount and Secret and never expires. Keys are written in Go's map order
// (sorted), as upstream's JWT library marshals claims.
import type { Obj } from "../registry/types.ts";
import type { UserInfo } from "./user.ts";

/** The issuer of legacy Secret-based tokens. */
export const LEGACY_ISSUER = "kubernetes/serviceaccount";
export const SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";
const USER_PREFIX = "system:serviceaccount:";
const LEGACY = "kubernetes.io/serviceaccount/";

export const username = (ns: string, name: string) => `${USER_PREFIX}${ns}:${name}`;

/** The namespace and name of a service-account user name, or null when it is not one. */
export function splitUsername(user: string): [string, string] | null {
  if (!user.startsWith(USER_PREFIX)) return null;
  const parts = user.slice(USER_PREFIX.length).split(":");
  return parts.length === 2 && parts[0] && parts[1] ? [parts[0], parts[1]] : null;
}

export interface ServiceAccountInfo { namespace: string; name: string; uid: string; podName?: string; podUID?: string }

/** The user a service-account token authenticates as. */
export function userOf(i: ServiceAccountInfo): UserInfo {
  const u: UserInfo = { name: username(i.namespace, i.name), uid: i.uid, groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${i.namespace}`] };
  if (i.podName && i.podUID) u.extra = { "authentication.kubernetes.io/pod-name": [i.podName], "authentication.kubernetes.io/pod-uid": [i.podUID] };
  return u;
}

const ref = (o: Obj) => ({ name: o.metadata.name as string, uid: o.metadata.uid as string });

export interface BoundToken {
  issuer: string;
  audiences: string[];
  sa: Obj;
  /** The object the token is bound to: it is valid only while that object exists (same uid). */
  pod?: Obj;
  secret?: Obj;
  /** Seconds since the epoch. */
  now: number;
  expirationSeconds: number;
  /** When set (seconds since the epoch), use after it is only warned about (the extended pod-bound tokens). */
  warnAfter?: number;
}

/** The claims of a bound token. */
export function boundClaims(t: BoundToken): Obj {
  const k8s: Obj = { namespace: t.sa.metadata.namespace };
  if (t.pod) k8s.pod = ref(t.pod);
  else if (t.secret) k8s.secret = ref(t.secret);
  k8s.serviceaccount = ref(t.sa);
  if (t.warnAfter) k8s.warnafter = t.warnAfter;
  return {
    aud: t.audiences, exp: t.now + t.expirationSeconds, iat: t.now, iss: t.issuer,
    "kubernetes.io": k8s, nbf: t.now, sub: username(t.sa.metadata.namespace, t.sa.metadata.name),
  };
}

/** The claims of a legacy token kept in `secret` for `sa`. */
export function legacyClaims(sa: Obj, secret: Obj): Obj {
  return {
    iss: LEGACY_ISSUER,
    [`${LEGACY}namespace`]: sa.metadata.namespace,
    [`${LEGACY}secret.name`]: secret.metadata.name,
    [`${LEGACY}service-account.name`]: sa.metadata.name,
    [`${LEGACY}service-account.uid`]: sa.metadata.uid,
    sub: username(sa.metadata.namespace, sa.metadata.name),
  };
}

/** What a legacy token's claims name. */
export function legacyRefs(c: Obj) {
  const s = (k: string) => (typeof c[`${LEGACY}${k}`] === "string" ? (c[`${LEGACY}${k}`] as string) : "");
  return { namespace: s("namespace"), secretName: s("secret.name"), name: s("service-account.name"), uid: s("service-account.uid") };
}
