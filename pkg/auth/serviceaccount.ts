// A server's service-account token issuer: its keys (from the flags, or the key it generated once), the
// signer of bound and legacy tokens, and the authenticator that checks them.
import { SignJWT } from "jose";
import type { Registry } from "../registry/registry.ts";
import type { Obj } from "../registry/types.ts";
import type { Authenticator, Credentials } from "./authenticate.ts";
import { ensureGeneratedSigningKey, readSigningKey, readVerifyKeys, type SigningKey, type VerifyKey } from "./serviceaccount-keys.ts";
import type { ServiceAccountOptions } from "./serviceaccount-options.ts";
import { type ObjectGetter, ServiceAccountTokenAuthenticator } from "./serviceaccount-verify.ts";

export class ServiceAccountIssuer {
  readonly signing: SigningKey;
  /** The verifying keys: every --service-account-key-file's, and the signing key's own. */
  readonly keys: VerifyKey[];
  readonly authenticator: ServiceAccountTokenAuthenticator;

  constructor(readonly o: ServiceAccountOptions, get: ObjectGetter) {
    this.signing = readSigningKey(o.signingKeyFile ?? ensureGeneratedSigningKey(o.generatedKeyFile));
    const keys = [...o.keyFiles.flatMap(readVerifyKeys), this.signing.verify];
    this.keys = keys.filter((k, i) => keys.findIndex((x) => x.kid === k.kid) === i);
    this.authenticator = new ServiceAccountTokenAuthenticator({ issuers: o.issuers, keys: this.keys, audiences: o.audiences, lookup: o.lookup }, get);
  }

  /** The issuer of the tokens this server signs. */
  get issuer() { return this.o.issuers[0]; }

  /** A signed JWT of `claims` (header: the algorithm and the signing key's id, as upstream writes it). */
  sign(claims: Obj): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: this.signing.alg, kid: this.signing.kid }).sign(this.signing.key);
  }
}

/**
 * Objects from the registry's watch cache, as upstream's authenticator reads its informers; a miss is
 * confirmed with a consistent read (the object may be a moment old). A 404 is null.
 */
export function registryGetter(registry: Registry): ObjectGetter {
  return async (resource, ns, name) => {
    const rs = registry.lookup("", "v1", resource)!;
    const read = (rv: string) => rs.get(ns, name, rv).catch((e) => {
      if ((e as { code?: number }).code === 404) return null;
      throw e;
    });
    return (await read("0")) ?? (await read(""));
  };
}

/**
 * The service-account tokens of `Authorization: Bearer` alone. The shared bearer-token union (static,
 * bootstrap, OIDC, webhook tokens) takes `ServiceAccountIssuer.authenticator` in its place when merged.
 */
export function serviceAccountBearer(a: ServiceAccountTokenAuthenticator): Authenticator {
  return {
    authenticate(c: Credentials) {
      const parts = (c.headers.get("authorization") ?? "").trim().split(" ");
      if (parts.length < 2 || parts[0].toLowerCase() !== "bearer" || !parts[1]) return null;
      return a.authenticateToken(parts[1]);
    },
  };
}
