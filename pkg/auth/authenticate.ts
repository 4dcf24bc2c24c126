// Authentication: the configured authenticators in upstream's order; the first to vouch for the caller
// wins, a credential that fails is a 401, and a request with no credentials is anonymous when allowed.
import type { X509Certificate } from "node:crypto";
import { ANONYMOUS, type UserInfo, withAuthenticatedGroup } from "./user.ts";

/** What a request carries that authenticators read. */
export interface Credentials {
  headers: Headers;
  /** The client certificate chain the TLS front verified against a client CA, leaf first. */
  clientCertificates?: X509Certificate[];
}

export interface Authenticated {
  user: UserInfo;
  /** The audiences the credential was issued for, when it names them (tokens). */
  audiences?: string[];
}

/** A failed credential: the request is answered 401, whatever later authenticators would say. */
export class AuthenticationError extends Error {}

/** Reads one kind of credential; null when the request carries none of that kind (no opinion). */
export interface Authenticator {
  authenticate(c: Credentials): Authenticated | null | Promise<Authenticated | null>;
}

export class AuthenticatorChain {
  constructor(private authenticators: Authenticator[], private anonymous: boolean) {}

  /** The caller, or an AuthenticationError when a credential fails or none is given and anonymous is off. */
  async authenticate(c: Credentials): Promise<Authenticated> {
    for (const a of this.authenticators) {
      const r = await a.authenticate(c);
      if (r) return { ...r, user: withAuthenticatedGroup(r.user) };
    }
    if (this.anonymous) return { user: ANONYMOUS };
    throw new AuthenticationError("no credentials");
  }
}
