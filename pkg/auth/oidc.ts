// The OpenID Connect token authenticator (kube-apiserver's --oidc-*): an ID token of the configured issuer,
// signed by one of its keys with an allowed algorithm, issued for our client ID and not expired, names a
// user through its claims. Tokens of other issuers (or not JWTs at all) are left to other authenticators.
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { decodeJwt, jwtVerify, type JWTPayload } from "jose";
import { StartupError, reason } from "../server/startup-errors.ts";
import { type Authenticated, type Authenticator, AuthenticationError } from "./authenticate.ts";
import { OidcIssuer, issuerFetch } from "./oidc-issuer.ts";
import type { OidcOptions } from "./oidc-options.ts";
import type { UserInfo } from "./user.ts";

/** A token's nbf may be this far ahead of our clock (go-oidc's leeway); its exp gets none. */
const NBF_LEEWAY_S = 60;
/** Google's ID tokens may name its issuer without the scheme (OpenID Connect Core §15.6.2). */
const GOOGLE = "https://accounts.google.com";
const LEGACY_GOOGLE = "accounts.google.com";

export class OidcAuthenticator {
  constructor(private o: OidcOptions, private issuer: OidcIssuer) {}

  /** The authenticator of the flags; its issuer is discovered in the background. */
  static start(o: OidcOptions): OidcAuthenticator {
    const ca = o.caFile ? readCA(o.caFile) : undefined;
    return new OidcAuthenticator(o, new OidcIssuer(o.issuerURL, issuerFetch(ca)).start());
  }

  /** The token's user; null when it is not a JWT of this issuer; AuthenticationError when it is but fails. */
  async authenticateToken(token: string): Promise<Authenticated | null> {
    if (untrustedIssuer(token) !== this.o.issuerURL) return null;
    const keys = this.issuer.keys;
    if (!keys) throw new AuthenticationError("oidc: authenticator not initialized");
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        issuer: this.o.issuerURL === GOOGLE ? [GOOGLE, LEGACY_GOOGLE] : this.o.issuerURL,
        audience: this.o.clientID,
        algorithms: this.o.signingAlgs,
        requiredClaims: ["exp"],
        clockTolerance: NBF_LEEWAY_S,
      }));
    } catch (e) {
      throw new AuthenticationError(`oidc: verify token: ${(e as Error).message}`);
    }
    if (claims.exp! * 1000 < Date.now()) throw new AuthenticationError(`oidc: token is expired (Token Expiry: ${new Date(claims.exp! * 1000).toISOString()})`);
    return { user: this.userOf(claims) };
  }

  /** The user the verified claims name, as upstream maps them. */
  private userOf(c: JWTPayload): UserInfo {
    const { usernameClaim, usernamePrefix, groupsClaim, groupsPrefix, requiredClaims } = this.o;
    const name = c[usernameClaim];
    if (typeof name !== "string") throw new AuthenticationError(`oidc: parse username claims ${JSON.stringify(usernameClaim)}: ${name === undefined ? "claim not present" : "not a string"}`);
    // An email names a user only once the issuer vouches for it; absent, the claim is taken as verified.
    if (usernameClaim === "email" && c.email_verified !== undefined) {
      if (typeof c.email_verified !== "boolean") throw new AuthenticationError("oidc: parse 'email_verified' claim: not a boolean");
      if (!c.email_verified) throw new AuthenticationError("oidc: email not verified");
    }
    const groups = groupsClaim && c[groupsClaim] !== undefined ? groupsOf(groupsClaim, c[groupsClaim]).map((g) => groupsPrefix + g) : [];
    for (const [claim, want] of Object.entries(requiredClaims)) {
      const got = c[claim];
      if (got === undefined) throw new AuthenticationError(`oidc: required claim ${claim} not present in ID token`);
      if (typeof got !== "string") throw new AuthenticationError(`oidc: parse claim ${claim}: not a string`);
      if (got !== want) throw new AuthenticationError(`oidc: required claim ${claim} value does not match. Got = ${got}, want = ${want}`);
    }
    return { name: usernamePrefix + name, groups };
  }
}

/** A groups claim is an array of strings, or one string (a "role"-like claim). */
function groupsOf(claim: string, v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v) && v.every((g) => typeof g === "string")) return v;
  throw new AuthenticationError(`oidc: parse groups claim ${JSON.stringify(claim)}: not a string or an array of strings`);
}

/** The `iss` a token claims, unverified: only to tell whether it is this issuer's to judge. */
function untrustedIssuer(token: string): string | undefined {
  try {
    const iss = decodeJwt(token).iss;
    return iss === LEGACY_GOOGLE ? GOOGLE : iss;
  } catch {
    return undefined;
  }
}

function readCA(file: string): string {
  let pem: string;
  try { pem = readFileSync(file, "utf8"); } catch (e) { throw new StartupError(`cannot read --oidc-ca-file ${file}: ${reason(e)}`); }
  try { new X509Certificate(pem); } catch { throw new StartupError(`--oidc-ca-file ${file} holds no PEM certificate`); }
  return pem;
}

/**
 * The OIDC authenticator behind a request's `Authorization: Bearer` token, standing alone until it joins
 * the shared bearer-token union: a bearer token it does not accept is a 401, as upstream's bearer filter says.
 */
export function oidcBearerAuthenticator(oidc: OidcAuthenticator): Authenticator {
  return {
    async authenticate(c) {
      const parts = (c.headers.get("authorization") ?? "").trim().split(" ");
      if (parts.length < 2 || parts[0].toLowerCase() !== "bearer" || !parts[1]) return null;
      const r = await oidc.authenticateToken(parts[1]);
      if (!r) throw new AuthenticationError("invalid bearer token");
      return r;
    },
  };
}
