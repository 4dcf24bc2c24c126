// Authentication: the configured authenticators in upstream's order; the first to vouch for the caller
// wins, a credential that fails is a 401 unless a later authenticator vouches, and a request with no
// credentials is anonymous when allowed.
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

  /**
   * The caller, or an AuthenticationError when a credential failed and no later authenticator vouched
   * for the caller (upstream's union: a client certificate the front-proxy authenticator refuses may still
   * be a client-CA user), or when none is given and anonymous is off.
   */
  async authenticate(c: Credentials): Promise<Authenticated> {
    let failed: unknown;
    for (const a of this.authenticators) {
      try {
        const r = await a.authenticate(c);
        if (r) return { ...r, user: withAuthenticatedGroup(r.user) };
      } catch (e) {
        if (!(e instanceof AuthenticationError)) throw e;
        failed ??= e;
      }
    }
    if (failed) throw failed;
    if (this.anonymous) return { user: ANONYMOUS };
    throw new AuthenticationError("no credentials");
  }
}
