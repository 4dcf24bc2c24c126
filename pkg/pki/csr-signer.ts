// The kubernetes.io signers: checks a CertificateSigningRequest against its signer's rules (upstream's
// csrsigning controller) and issues the certificate from the cluster CA. X.509 work is @peculiar/x509's
// (on WebCrypto); keys are read with node:crypto.
import "reflect-metadata";
import { createPrivateKey, randomBytes } from "node:crypto";
import * as x509 from "@peculiar/x509";

/** Usages named by a CSR, as certificate key usage bits or extended key usage OIDs (upstream's table). */
const KEY_USAGES: Record<string, x509.KeyUsageFlags> = {
  "signing": x509.KeyUsageFlags.digitalSignature, "digital signature": x509.KeyUsageFlags.digitalSignature,
  "content commitment": x509.KeyUsageFlags.nonRepudiation, "key encipherment": x509.KeyUsageFlags.keyEncipherment,
  "key agreement": x509.KeyUsageFlags.keyAgreement, "data encipherment": x509.KeyUsageFlags.dataEncipherment,
  "cert sign": x509.KeyUsageFlags.keyCertSign, "crl sign": x509.KeyUsageFlags.cRLSign,
  "encipher only": x509.KeyUsageFlags.encipherOnly, "decipher only": x509.KeyUsageFlags.decipherOnly,
};
const EXT_KEY_USAGES: Record<string, string> = {
  "any": "2.5.29.37.0", "server auth": "1.3.6.1.5.5.7.3.1", "client auth": "1.3.6.1.5.5.7.3.2", "code signing": "1.3.6.1.5.5.7.3.3",
  "email protection": "1.3.6.1.5.5.7.3.4", "s/mime": "1.3.6.1.5.5.7.3.4", "ipsec end system": "1.3.6.1.5.5.7.3.5",
  "ipsec tunnel": "1.3.6.1.5.5.7.3.6", "ipsec user": "1.3.6.1.5.5.7.3.7", "timestamping": "1.3.6.1.5.5.7.3.8",
  "ocsp signing": "1.3.6.1.5.5.7.3.9", "microsoft sgc": "1.3.6.1.4.1.311.10.3.3", "netscape sgc": "2.16.840.1.113730.4.1",
};

const sanOf = (req: x509.Pkcs10CertificateRequest) => req.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);

/** WebCrypto's algorithm parameters (not in this project's type libraries). */
type Alg = { name: string; hash?: string; namedCurve?: string };

/** What the signer rules read from a request. */
export interface RequestFacts { commonName: string; organizations: string[]; dns: string[]; ips: string[]; emails: string[]; uris: string[] }

export function requestFacts(req: x509.Pkcs10CertificateRequest): RequestFacts {
  const names = sanOf(req)?.names.items ?? [];
  const of = (t: string) => names.filter((n) => n.type === t).map((n) => n.value);
  return {
    commonName: req.subjectName.getField("CN")[0] ?? "", organizations: req.subjectName.getField("O"),
    dns: of("dns"), ips: of("ip"), emails: of("email"), uris: of("url"),
  };
}

const sameSet = (a: string[], b: string[]) => new Set(a).size === b.length && b.every((x) => a.includes(x));
const usagesDidNotMatch = (want: string[]) => `usages did not match [${[...want].sort().join(" ")}]`;

/** Kubelet certificates: organization system:nodes, common name system:node:..., fixed usages (RSA keys add key encipherment). */
function kubeletRules(f: RequestFacts, usages: string[], serving: boolean): string | undefined {
  const usage = serving ? "server auth" : "client auth";
  const full = ["digital signature", "key encipherment", usage], noRSA = ["digital signature", usage];
  if (f.organizations.length !== 1 || f.organizations[0] !== "system:nodes") return "subject organization is not system:nodes";
  if (serving) {
    if (!f.dns.length && !f.ips.length) return "DNS or IP subjectAltName is required";
  } else {
    if (f.dns.length) return "DNS subjectAltNames are not allowed";
  }
  if (f.emails.length) return "Email subjectAltNames are not allowed";
  if (!serving && f.ips.length) return "IP subjectAltNames are not allowed";
  if (f.uris.length) return "URI subjectAltNames are not allowed";
  const usagesOk = sameSet(usages, full) || sameSet(usages, noRSA);
  if (serving && !usagesOk) return usagesDidNotMatch(full);
  if (!f.commonName.startsWith("system:node:")) return "subject common name does not begin with system:node:";
  if (!serving && !usagesOk) return usagesDidNotMatch(full);
  return undefined;
}

function apiServerClientRules(usages: string[]): string | undefined {
  for (const u of usages) if (!["digital signature", "key encipherment", "client auth"].includes(u)) return `invalid usage for client certificate: ${u}`;
  if (!usages.includes("client auth")) return "missing required usage for client certificate: client auth";
  return undefined;
}

/** Why `signerName` refuses the request (its Failed condition's message), or undefined when it may be signed. */
export function signerRefusal(signerName: string, f: RequestFacts, usages: string[]): string | undefined {
  switch (signerName) {
    case "kubernetes.io/kubelet-serving": return kubeletRules(f, usages, true);
    case "kubernetes.io/kube-apiserver-client-kubelet": return kubeletRules(f, usages, false);
    case "kubernetes.io/kube-apiserver-client": return apiServerClientRules(usages);
  }
  return `unrecognized signerName: ${JSON.stringify(signerName)}`;
}

/** Upstream backdates by 5 minutes for clock skew; Kite backdates a short duration by a tenth of it at most, so a
 * certificate of seconds (--cluster-signing-duration in tests of rotation) is not issued already expired. */
const BACKDATE_MS = 5 * 60_000;
const backdateMs = (durationMs: number) => Math.min(BACKDATE_MS, durationMs / 10);

/** Gives the signer, built on first use (the X.509 library loads with it). */
export type SignerSource = () => Promise<ClusterSigner>;

export class ClusterSigner {
  private constructor(private caCert: x509.X509Certificate, private caKey: CryptoKey, private algorithm: Alg, private durationMs: number) {}

  /** The CA from PEM text; throws one line when the pair cannot be used. */
  static async load(certPem: string, keyPem: string, durationMs: number): Promise<ClusterSigner> {
    const caCert = new x509.X509Certificate(certPem);
    const key = createPrivateKey(keyPem);
    const pkcs8 = key.export({ type: "pkcs8", format: "der" });
    let algorithm: Alg, signing: Alg;
    if (key.asymmetricKeyType === "rsa") {
      algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
      signing = algorithm;
    } else if (key.asymmetricKeyType === "ec") {
      const curve = ({ prime256v1: "P-256", secp384r1: "P-384", secp521r1: "P-521" } as Record<string, string>)[key.asymmetricKeyDetails?.namedCurve ?? ""];
      if (!curve) throw new Error(`unsupported EC curve ${key.asymmetricKeyDetails?.namedCurve}`);
      algorithm = { name: "ECDSA", namedCurve: curve };
      signing = { name: "ECDSA", hash: curve === "P-256" ? "SHA-256" : "SHA-384" };
    } else throw new Error(`unsupported CA key type ${key.asymmetricKeyType}`);
    const caKey = await crypto.subtle.importKey("pkcs8", pkcs8, algorithm, false, ["sign"]);
    return new ClusterSigner(caCert, caKey, signing, durationMs);
  }

  /** A PEM certificate for the request: its subject and SANs, the usages asked for, valid from 5 minutes ago (a tenth of a short duration). */
  async sign(req: x509.Pkcs10CertificateRequest, usages: string[], now = Date.now()): Promise<string> {
    if (now >= this.caCert.notAfter.getTime()) throw new Error("refusing to sign a certificate that expired in the past");
    let keyBits = 0;
    const eku: string[] = [];
    for (const u of usages) {
      if (KEY_USAGES[u] !== undefined) keyBits |= KEY_USAGES[u];
      else if (EXT_KEY_USAGES[u]) eku.push(EXT_KEY_USAGES[u]);
      else throw new Error(`unrecognized usage: ${u}`);
    }
    const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
    if (keyBits) extensions.push(new x509.KeyUsagesExtension(keyBits, true));
    if (eku.length) extensions.push(new x509.ExtendedKeyUsageExtension([...new Set(eku)], false));
    const ski = this.caCert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
    if (ski) extensions.push(new x509.AuthorityKeyIdentifierExtension(ski));
    const san = sanOf(req);
    if (san) extensions.push(san);
    const notBefore = new Date(now - backdateMs(this.durationMs));
    const notAfter = new Date(Math.min(notBefore.getTime() + this.durationMs, this.caCert.notAfter.getTime()));
    const serial = randomBytes(16);
    serial[0] &= 0x7f; // a positive serial number
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial.toString("hex"), subject: req.subjectName, issuer: this.caCert.subjectName, notBefore, notAfter,
      publicKey: req.publicKey, signingKey: this.caKey, signingAlgorithm: this.algorithm, extensions,
    });
    return cert.toString("pem") + "\n";
  }
}

/** The request of a CSR's spec.request (base64 of PEM); throws when it cannot be read. */
export function parseRequest(specRequest: string): x509.Pkcs10CertificateRequest {
  return new x509.Pkcs10CertificateRequest(Buffer.from(specRequest, "base64").toString("latin1"));
}
