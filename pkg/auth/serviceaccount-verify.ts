// The service-account token authenticator (upstream's JWT token authenticator with its bound and legacy
// validators). A JWT from another issuer is not its business (null). One of its issuer must be signed by
// a verifying key, be meant for an audience asked for, be within its lifetime (a minute's leeway, as
// upstream), and name a ServiceAccount — and Pod or Secret — that still exist with the same uid;
// otherwise it is refused (AuthenticationError: 401).
import { timingSafeEqual } from "node:crypto";
import { compactVerify, decodeJwt } from "jose";
import type { Obj } from "../registry/types.ts";
import { type Authenticated, AuthenticationError } from "./authenticate.ts";
import { LEGACY_ISSUER, type ServiceAccountInfo, legacyRefs, splitUsername, userOf } from "./serviceaccount-claims.ts";
import type { VerifyKey } from "./serviceaccount-keys.ts";

/** Reads an object consistently; null when there is none. */
export type ObjectGetter = (resource: "serviceaccounts" | "secrets" | "pods", ns: string, name: string) => Promise<Obj | null>;

export interface VerifierOptions {
  issuers: string[];
  keys: VerifyKey[];
  /** --api-audiences: what a token must be for unless the caller asks for others. */
  audiences: string[];
  /** --service-account-lookup (legacy tokens; bound tokens are always checked). */
  lookup: boolean;
}

/** Upstream's clock skew allowance for exp, nbf, iat and deletion. */
const LEEWAY_SECONDS = 60;

const fail = (why: string) => new AuthenticationError(why);
const INVALIDATED = "Token has been invalidated";
const invalidated = () => fail(INVALIDATED);
/** Go's %q of a string slice. */
const goQuoted = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(" ")}]`;
const text = new TextDecoder();

/** The claims of a JWT read without checking it (only to find its issuer); null when it is not a JWT. */
function unverifiedClaims(token: string): Obj | null {
  try {
    const c = decodeJwt(token);
    return typeof c.iss === "string" ? c : null;
  } catch {
    return null;
  }
}

export class ServiceAccountTokenAuthenticator {
  constructor(private o: VerifierOptions, private get: ObjectGetter, private now = () => Date.now() / 1000) {}

  /** `audiences`: those the caller asks the token to be for (a TokenReview's); none: --api-audiences. */
  async authenticateToken(token: string, audiences: string[] = []): Promise<Authenticated | null> {
    const unverified = unverifiedClaims(token);
    if (!unverified) return null;
    const legacy = unverified.iss === LEGACY_ISSUER;
    if (!legacy && !this.o.issuers.includes(unverified.iss)) return null;
    const claims = await this.verified(token);
    const auds = this.audiencesOf(claims, audiences);
    const info = legacy ? await this.legacy(claims, token) : await this.bound(claims);
    return { user: userOf(info), audiences: auds };
  }

  /** The claims of a token one of the keys signed (the key its header names is tried first). */
  private async verified(token: string): Promise<Obj> {
    let kid: unknown;
    try { kid = JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString()).kid; } catch { /* no usable header: every key is tried */ }
    const keys = [...this.o.keys].sort((a, b) => Number(b.kid === kid) - Number(a.kid === kid));
    for (const k of keys) {
      try {
        const r = await compactVerify(token, k.key, { algorithms: k.algorithms });
        return JSON.parse(text.decode(r.payload));
      } catch { /* the next key */ }
    }
    throw fail("square/go-jose: error in cryptographic primitive");
  }

  /** The audiences both the token and the caller name; a token naming none is for --api-audiences. */
  private audiencesOf(c: Obj, requested: string[]): string[] {
    const named = typeof c.aud === "string" ? [c.aud] : Array.isArray(c.aud) ? (c.aud as string[]) : [];
    const have = named.length ? named : this.o.audiences;
    const want = requested.length ? requested : this.o.audiences;
    const auds = have.filter((a) => want.includes(a));
    if (auds.length === 0 && this.o.audiences.length) throw fail(`token audiences ${goQuoted(have)} is invalid for the target audiences ${goQuoted(want)}`);
    return auds;
  }

  /** A bound token: in its lifetime, and every object it names still there with the same uid. */
  private async bound(c: Obj): Promise<ServiceAccountInfo> {
    const now = this.now();
    const num = (v: unknown) => (typeof v === "number" ? v : undefined);
    const exp = num(c.exp), nbf = num(c.nbf), iat = num(c.iat);
    if (exp !== undefined && now - LEEWAY_SECONDS > exp) throw fail("Token has expired.");
    if ((nbf !== undefined && now + LEEWAY_SECONDS < nbf) || (iat !== undefined && now + LEEWAY_SECONDS < iat)) throw fail("Token could not be validated.");
    const k = c["kubernetes.io"];
    if (typeof k !== "object" || k === null || typeof k.namespace !== "string" || typeof k.serviceaccount?.name !== "string") throw fail("Token could not be validated.");
    const ns: string = k.namespace;
    const sa = k.serviceaccount;
    await this.current("serviceaccounts", ns, sa, now, (name) => `serviceaccounts "${name}" not found`);
    if (k.secret) await this.current("secrets", ns, k.secret, now, () => INVALIDATED);
    if (k.pod) await this.current("pods", ns, k.pod, now, () => INVALIDATED);
    return { namespace: ns, name: sa.name, uid: sa.uid ?? "", podName: k.pod?.name, podUID: k.pod?.uid };
  }

  /** The object a token names exists, is not long deleted, and has the uid the token names. */
  private async current(resource: "serviceaccounts" | "secrets" | "pods", ns: string, ref: Obj, now: number, missing: (name: string) => string) {
    const o = await this.get(resource, ns, String(ref.name ?? ""));
    if (!o) throw fail(missing(String(ref.name)));
    const deleted = o.metadata.deletionTimestamp ? Date.parse(o.metadata.deletionTimestamp) / 1000 : Infinity;
    if (deleted < now - LEEWAY_SECONDS || o.metadata.uid !== ref.uid) throw invalidated();
  }

  /** A legacy token: well formed, and with lookup on, still the one its Secret holds for a live ServiceAccount. */
  private async legacy(c: Obj, token: string): Promise<ServiceAccountInfo> {
    if (typeof c.sub !== "string" || !c.sub) throw fail("sub claim is missing");
    const r = legacyRefs(c);
    for (const [v, claim] of [[r.namespace, "namespace"], [r.secretName, "secretName"], [r.name, "serviceAccountName"], [r.uid, "serviceAccountUID"]]) {
      if (!v) throw fail(`${claim} claim is missing`);
    }
    const sub = splitUsername(c.sub);
    if (!sub || sub[0] !== r.namespace || sub[1] !== r.name) throw fail("sub claim is invalid");
    if (this.o.lookup) {
      const secret = await this.get("secrets", r.namespace, r.secretName);
      if (!secret || secret.metadata.deletionTimestamp) throw invalidated();
      const kept = Buffer.from(String(secret.data?.token ?? ""), "base64");
      const given = Buffer.from(token);
      if (kept.length !== given.length || !timingSafeEqual(kept, given)) throw fail("Token does not match server's copy");
      const sa = await this.get("serviceaccounts", r.namespace, r.name);
      if (!sa) throw fail(`serviceaccounts "${r.name}" not found`);
      if (sa.metadata.deletionTimestamp || sa.metadata.uid !== r.uid) throw invalidated();
    }
    return { namespace: r.namespace, name: r.name, uid: r.uid };
  }
}
