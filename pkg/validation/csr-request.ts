// A CertificateSigningRequest's spec.request as upstream checks it: the first PEM block is a
// CERTIFICATE REQUEST, its DER is a PKCS#10 request, and the request is signed by its own key.
// Parsing is @peculiar/asn1-schema's; the signature is checked with node:crypto, synchronously.
import "reflect-metadata";
import { createPublicKey, verify } from "node:crypto";
import { AsnConvert } from "@peculiar/asn1-schema";
import { CertificationRequest } from "@peculiar/asn1-csr";

/** Go's pem.Decode: the first well-formed block (headers skipped), or undefined. */
function firstPemBlock(text: string): { type: string; der: Buffer } | undefined {
  for (const m of text.matchAll(/(?:^|\n)-----BEGIN ([^\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g)) {
    const body = m[2].replace(/^[\w-]+:[^\n]*\n/gm, "").replace(/\s+/g, "");
    if (/^[A-Za-z0-9+/]*={0,2}$/.test(body) && body.length % 4 === 0) return { type: m[1], der: Buffer.from(body, "base64") };
  }
  return undefined;
}

/** Signature algorithms by OID: the digest node:crypto needs (null for Ed25519) and Go's failure message. */
const RSA = "crypto/rsa: verification error", ECDSA = "x509: ECDSA verification failure";
const ALGORITHMS: Record<string, [string | null, string]> = {
  "1.2.840.113549.1.1.5": ["sha1", RSA], "1.2.840.113549.1.1.11": ["sha256", RSA],
  "1.2.840.113549.1.1.12": ["sha384", RSA], "1.2.840.113549.1.1.13": ["sha512", RSA],
  "1.2.840.10045.4.1": ["sha1", ECDSA], "1.2.840.10045.4.3.2": ["sha256", ECDSA],
  "1.2.840.10045.4.3.3": ["sha384", ECDSA], "1.2.840.10045.4.3.4": ["sha512", ECDSA],
  "1.3.101.112": [null, "x509: Ed25519 verification failure"],
};
const RSA_PSS = "1.2.840.113549.1.1.10";

/** Why the request is refused, in upstream's words, or undefined when it is a well-signed CSR. */
export function certificateRequestProblem(request: Buffer): string | undefined {
  const block = firstPemBlock(request.toString("latin1"));
  if (!block || block.type !== "CERTIFICATE REQUEST") return "PEM block type must be CERTIFICATE REQUEST";
  let csr: CertificationRequest;
  try {
    csr = AsnConvert.parse(block.der, CertificationRequest);
  } catch {
    return "asn1: structure error: not a PKCS #10 certificate request";
  }
  const oid = csr.signatureAlgorithm.algorithm;
  if (oid === RSA_PSS) return undefined; // parameters in the algorithm; accepted as upstream accepts them
  const alg = ALGORITHMS[oid];
  if (!alg) return "x509: cannot verify signature: algorithm unimplemented";
  try {
    const key = createPublicKey({ key: Buffer.from(AsnConvert.serialize(csr.certificationRequestInfo.subjectPKInfo)), format: "der", type: "spki" });
    const info = csr.certificationRequestInfoRaw ?? AsnConvert.serialize(csr.certificationRequestInfo);
    if (verify(alg[0], Buffer.from(info), key, Buffer.from(csr.signature))) return undefined;
  } catch { /* a key node cannot read fails as a bad signature does */ }
  return alg[1];
}
