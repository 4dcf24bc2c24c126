// Certificate authorities and client certificates for the tests, made with node-forge (keys by node:crypto),
// written as PEM files into a temp dir.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import forge from "node-forge";
import { tempDir } from "./processes.ts";

export interface Issued {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface CA extends Issued {
  forgeCert: forge.pki.Certificate;
  forgeKey: forge.pki.rsa.PrivateKey;
}

const dir = tempDir("kite-certs-");
let files = 0;
const DAY = 24 * 3600_000;

function newKey() {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
  return forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
}

function write(cert: forge.pki.Certificate, key: forge.pki.rsa.PrivateKey): Issued {
  const n = files++;
  const out = { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(key), certFile: join(dir, `${n}.crt`), keyFile: join(dir, `${n}.key`) };
  writeFileSync(out.certFile, out.cert);
  writeFileSync(out.keyFile, out.key, { mode: 0o600 });
  return out;
}

function newCert(key: forge.pki.rsa.PrivateKey, subject: forge.pki.CertificateField[], notBefore: Date, notAfter: Date) {
  const c = forge.pki.createCertificate();
  c.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  c.serialNumber = "01" + randomBytes(8).toString("hex");
  c.validity.notBefore = notBefore;
  c.validity.notAfter = notAfter;
  c.setSubject(subject);
  return c;
}

export function makeCA(name: string): CA {
  const key = newKey();
  const c = newCert(key, [{ name: "commonName", value: name }], new Date(Date.now() - DAY), new Date(Date.now() + 30 * DAY));
  c.setIssuer(c.subject.attributes);
  c.setExtensions([{ name: "basicConstraints", cA: true, critical: true }, { name: "keyUsage", keyCertSign: true, digitalSignature: true, critical: true }]);
  c.sign(key, forge.md.sha256.create());
  return { ...write(c, key), forgeCert: c, forgeKey: key };
}

export interface ClientCertOptions {
  /** Organizations (groups), in order. */
  orgs?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

/** A client certificate (extKeyUsage clientAuth) for `cn`, signed by `ca`. */
export function issueClient(ca: CA, cn: string, o: ClientCertOptions = {}): Issued {
  const key = newKey();
  const subject = [...(o.orgs ?? []).map((v) => ({ name: "organizationName", value: v })), { name: "commonName", value: cn }];
  const c = newCert(key, subject, o.notBefore ?? new Date(Date.now() - DAY), o.notAfter ?? new Date(Date.now() + 7 * DAY));
  c.setIssuer(ca.forgeCert.subject.attributes);
  c.setExtensions([{ name: "basicConstraints", cA: false }, { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true }, { name: "extKeyUsage", clientAuth: true }]);
  c.sign(ca.forgeKey, forge.md.sha256.create());
  return write(c, key);
}

/** A kubeconfig for `server` (trusting `caPem`) that authenticates with the client certificate. */
export function clientKubeconfig(server: string, caPem: string, client: Issued): string {
  const file = join(dir, `kubeconfig-${files++}.yaml`);
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  writeFileSync(file, `apiVersion: v1
kind: Config
clusters: [{name: t, cluster: {server: "${server}", certificate-authority-data: ${b64(caPem)}}}]
users: [{name: t, user: {client-certificate-data: ${b64(client.cert)}, client-key-data: ${b64(client.key)}}}]
contexts: [{name: t, context: {cluster: t, user: t, namespace: default}}]
current-context: t
`, { mode: 0o600 });
  return file;
}
