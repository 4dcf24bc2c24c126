// A real OpenID issuer on loopback for the OIDC tests: HTTPS with a CA of its own, a discovery document,
// a JWKS of keys generated here, and ID tokens signed by them (or by keys it does not publish).
import { join } from "node:path";
import type { Server } from "bun";
import { type CryptoKey, type JWK, SignJWT, exportJWK, generateKeyPair } from "jose";
import { ensureServingCerts } from "../../pkg/pki/certs.ts";
import { tempDir } from "./processes.ts";
import { freePort } from "./server.ts";

export interface SigningKey { kid: string; alg: string; key: CryptoKey | Uint8Array; jwk?: JWK }

export const CLIENT_ID = "kite";

async function asymmetricKey(kid: string, alg: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, key: privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

export class TestIssuer {
  readonly url: string;
  readonly caFile: string;
  /** The keys the JWKS publishes; the first signs by default. */
  published: SigningKey[] = [];
  /** Counts JWKS fetches, to see keys refreshed. */
  jwksFetches = 0;
  private server?: Server<undefined>;
  private generation = 0;

  private constructor(readonly port: number, private tls: { cert: string; key: string }, caFile: string) {
    this.url = `https://127.0.0.1:${port}`;
    this.caFile = caFile;
  }

  /** An issuer on a free port with an RS256 and an ES256 key published; not listening until listen(). */
  static async create(): Promise<TestIssuer> {
    const certs = ensureServingCerts(join(tempDir("kite-oidc-issuer-"), "pki"));
    const issuer = new TestIssuer(await freePort(), certs, certs.caFile);
    issuer.published = [await issuer.newKey("RS256"), await issuer.newKey("ES256")];
    return issuer;
  }

  /** A key with a fresh kid, not published. */
  async newKey(alg = "RS256"): Promise<SigningKey> {
    return asymmetricKey(`${alg.toLowerCase()}-${++this.generation}`, alg);
  }

  /** An HMAC key: a shared secret no JWKS of asymmetric keys can verify. */
  hmacKey(): SigningKey {
    return { kid: "hs256", alg: "HS256", key: new TextEncoder().encode("a shared secret of at least 32 bytes!") };
  }

  listen() {
    this.server = Bun.serve({
      hostname: "127.0.0.1", port: this.port, tls: this.tls,
      fetch: (req) => {
        const path = new URL(req.url).pathname;
        if (path === "/.well-known/openid-configuration") {
          return Response.json({ issuer: this.url, jwks_uri: `${this.url}/keys`, id_token_signing_alg_values_supported: ["RS256", "ES256"], response_types_supported: ["id_token"], subject_types_supported: ["public"] });
        }
        if (path === "/keys") {
          this.jwksFetches++;
          return Response.json({ keys: this.published.map((k) => k.jwk) });
        }
        return new Response("not found", { status: 404 });
      },
    });
  }

  stop() {
    this.server?.stop(true);
  }

  /** An ID token: iss, aud, sub alice, iat now and exp in an hour, unless `claims` says otherwise (undefined drops one). */
  async token(claims: Record<string, unknown> = {}, key: SigningKey = this.published[0]): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const all: Record<string, unknown> = { iss: this.url, aud: CLIENT_ID, sub: "alice", iat: now, exp: now + 3600, ...claims };
    for (const k of Object.keys(all)) if (all[k] === undefined) delete all[k];
    return new SignJWT(all).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" }).sign(key.key);
  }
}
