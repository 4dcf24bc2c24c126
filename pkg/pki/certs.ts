// Self-signed serving certificates: a CA and a serving certificate, generated once into the cert dir
// and reused on every later start.
import { createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes, sign as cryptoSign } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import forge from "node-forge";
import { writePrivateFile } from "./private.ts";

export interface ServingCerts { cert: string; key: string; ca: string; certFile: string; keyFile: string; caFile: string }

const newKey = () => generateKeyPairSync("rsa", { modulusLength: 2048 });
type Key = ReturnType<typeof newKey>;
/** PKCS#1 PEM ("RSA PRIVATE KEY"), as the certificates' keys have always been written. */
const keyPem = (k: KeyObject) => k.export({ type: "pkcs1", format: "pem" }) as string;

/**
 * Signs with SHA-256 and RSA by node:crypto: node-forge builds the certificate, but its own RSA arithmetic in
 * JavaScript cost ~0.1 s of CPU per signature and, through the JIT tiers it woke, ~4 MiB of a process's RSS.
 * forge hands its key the digest of the to-be-signed part it has just set on the certificate; this key
 * signs that part itself (RSASSA-PKCS1-v1_5, node:crypto's `sign`), not the digest.
 */
function sign(cert: forge.pki.Certificate, key: KeyObject): void {
  const signTbs = () => {
    const tbs = Buffer.from(forge.asn1.toDer((cert as unknown as { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate).getBytes(), "binary");
    return cryptoSign("sha256", tbs, key).toString("binary");
  };
  cert.sign({ sign: signTbs } as unknown as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
}

function newCert(subjectCN: string, key: Key, years: number) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(key.publicKey.export({ type: "spki", format: "pem" }) as string);
  cert.serialNumber = "01" + randomBytes(15).toString("hex");
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + years * 365 * 24 * 3600_000);
  cert.setSubject([{ name: "commonName", value: subjectCN }]);
  return cert;
}

const IP = /^(\d{1,3}\.){3}\d{1,3}$|:/;

/**
 * A new CA (common name `caName`, 10 years) and a serving certificate of it for `hosts` (DNS names and
 * IPs), all PEM.
 */
export function generateServingCerts(caName: string, certName: string, hosts: string[]): { ca: string; cert: string; key: string; caKey: string } {
  const caKey = newKey();
  const ca = newCert(caName, caKey, 10);
  ca.setIssuer(ca.subject.attributes);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  sign(ca, caKey.privateKey);

  const key = newKey();
  const cert = newCert(certName, key, 10);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: [...new Set(hosts.filter(Boolean))].map((h) => (IP.test(h) ? { type: 7, ip: h } : { type: 2, value: h })) },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  sign(cert, caKey.privateKey);
  return { ca: forge.pki.certificateToPem(ca), cert: forge.pki.certificateToPem(cert), key: keyPem(key.privateKey), caKey: keyPem(caKey.privateKey) };
}

/** Loads the CA and serving certificate from certDir, creating them on first use. */
export function ensureServingCerts(certDir: string, extraHosts: string[] = []): ServingCerts {
  const certFile = join(certDir, "apiserver.crt"), keyFile = join(certDir, "apiserver.key"), caFile = join(certDir, "ca.crt");
  const caKeyFile = join(certDir, "ca.key");
  if (existsSync(certFile) && existsSync(keyFile) && existsSync(caFile)) {
    return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8"), ca: readFileSync(caFile, "utf8"), certFile, keyFile, caFile };
  }
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const hosts = ["localhost", "127.0.0.1", "::1", hostname(), "kubernetes", "kubernetes.default", "kubernetes.default.svc", ...extraHosts];
  const { caKey, ...out } = generateServingCerts(`kite-ca-${Math.floor(Date.now() / 1000)}`, "kite-apiserver", hosts);
  writeFileSync(caFile, out.ca);
  writePrivateFile(caKeyFile, caKey);
  writePrivateFile(keyFile, out.key);
  writeFileSync(certFile, out.cert);
  return { ...out, certFile, keyFile, caFile };
}

export interface ClientCert { cert: string; key: string }

/**
 * A client certificate (CN = user, O = groups) signed by the cert dir's CA, generated once into
 * `certDir/NAME.crt` and `NAME.key` and reused, so kubeconfigs holding it stay valid across restarts.
 */
export function ensureClientCert(certDir: string, name: string, user: string, groups: string[]): ClientCert {
  const certFile = join(certDir, `${name}.crt`), keyFile = join(certDir, `${name}.key`);
  if (existsSync(certFile) && existsSync(keyFile)) return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
  const ca = forge.pki.certificateFromPem(readFileSync(join(certDir, "ca.crt"), "utf8"));
  const caKey = createPrivateKey(readFileSync(join(certDir, "ca.key"), "utf8"));
  const key = newKey();
  const cert = newCert(user, key, 1);
  cert.setSubject([{ name: "commonName", value: user }, ...groups.map((g) => ({ name: "organizationName", value: g }))]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", clientAuth: true },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  sign(cert, caKey);
  const out = { cert: forge.pki.certificateToPem(cert), key: keyPem(key.privateKey) };
  writePrivateFile(keyFile, out.key);
  writeFileSync(certFile, out.cert);
  return out;
}
