// Service-account token keys: PEM files of RSA or ECDSA keys (public or private, or certificates), the
// JWS algorithms each key signs with and its key id as upstream derives them, and the signing key a
// server generates once into its cert dir when none is given.
import { type KeyObject, createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { writePrivateFile } from "../pki/private.ts";

/** A key that verifies tokens: its JWS algorithm (the one the JWKS names) and those it accepts. */
export interface VerifyKey { key: KeyObject; kid: string; alg: string; algorithms: string[] }
export interface SigningKey { key: KeyObject; kid: string; alg: string; verify: VerifyKey }

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
const PRIVATE = /PRIVATE KEY$/;
const EC_ALGS: Record<string, string> = { prime256v1: "ES256", secp384r1: "ES384", secp521r1: "ES512" };
const RSA_ALGS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];

/** Upstream's key id: the unpadded base64url SHA-256 of the key's PKIX (SPKI) DER form. */
function keyId(pub: KeyObject): string {
  return createHash("sha256").update(pub.export({ type: "spki", format: "der" })).digest("base64url");
}

function verifyKey(pub: KeyObject): VerifyKey | null {
  if (pub.asymmetricKeyType === "rsa") return { key: pub, kid: keyId(pub), alg: "RS256", algorithms: RSA_ALGS };
  const alg = pub.asymmetricKeyType === "ec" ? EC_ALGS[pub.asymmetricKeyDetails?.namedCurve ?? ""] : undefined;
  return alg ? { key: pub, kid: keyId(pub), alg, algorithms: [alg] } : null;
}

function blocks(file: string): { type: string; pem: string }[] {
  return [...readFileSync(file, "utf8").matchAll(PEM_BLOCK)].map((m) => ({ type: m[1], pem: m[0] }));
}

/** The verifying keys of a --service-account-key-file (every key or certificate block in it). */
export function readVerifyKeys(file: string): VerifyKey[] {
  const keys: VerifyKey[] = [];
  for (const b of blocks(file)) {
    let pub: KeyObject;
    try {
      pub = PRIVATE.test(b.type) ? createPublicKey(createPrivateKey(b.pem)) : createPublicKey(b.pem);
    } catch {
      continue;
    }
    const k = verifyKey(pub);
    if (k) keys.push(k);
  }
  if (keys.length === 0) throw new Error(`failed to read service account key file ${file}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

/** The private key that signs tokens (the first private key in the file). */
export function readSigningKey(file: string): SigningKey {
  for (const b of blocks(file)) {
    if (!PRIVATE.test(b.type)) continue;
    const key = createPrivateKey(b.pem);
    const verify = verifyKey(createPublicKey(key));
    if (!verify) break;
    return { key, kid: verify.kid, alg: verify.alg, verify };
  }
  throw new Error(`failed to parse service-account signing key file ${file}: it holds no RSA or ECDSA (P-256, P-384, P-521) private key`);
}

/**
 * The generated signing key (ECDSA P-256, SEC1 PEM, 0600), created on a server's first start and kept.
 * Upstream accepts ECDSA signing keys as well as RSA ones; ES256 is chosen because a signature costs
 * ~0.15 ms of CPU against RS256-2048's ~1 ms, paid by every TokenRequest (one per pod with a projected
 * token). A key file kept from an earlier start, RSA or not, is used as it is.
 */
export function ensureGeneratedSigningKey(file: string): string {
  if (existsSync(file)) return file;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  writePrivateFile(file, privateKey.export({ type: "sec1", format: "pem" }) as string);
  return file;
}
