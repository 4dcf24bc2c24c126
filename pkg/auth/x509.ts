// Client certificates (--client-ca-file): a certificate that chains to one of the file's authorities, is
// within its validity and may be used for client authentication names its user by the subject's
// CommonName and its groups by the Organizations, as upstream's x509 authenticator does. A certificate
// that fails is a 401, never anonymous. Signatures are checked once per certificate object (one per
// connection, see pkg/serving/tlsfront.ts); dates on every request.
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Authenticated, type Authenticator, AuthenticationError, type Credentials } from "./authenticate.ts";

const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const ANY_USAGE = "2.5.29.37.0";

/** The certificates of a PEM bundle file; a file holding none is an error, as upstream refuses it. */
export function readCABundle(file: string): X509Certificate[] {
  return parseCABundle(readFileSync(file, "utf8"), file);
}

/** The certificates of PEM text (a file's, or a ConfigMap key's named by `source`); none is an error. */
export function parseCABundle(pem: string, source: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw new Error(`${source}: no certificates found`);
  return blocks.map((b) => new X509Certificate(b));
}

/** Upstream names a certificate that failed by its serial and key ids; Kite by serial and subject. */
const describe = (c: X509Certificate) => `SN=${BigInt(`0x${c.serialNumber}`)}, subject=${c.subject.replaceAll("\n", ",")}`;

const usableForClients = (c: X509Certificate) => !c.keyUsage || c.keyUsage.includes(CLIENT_AUTH) || c.keyUsage.includes(ANY_USAGE);

/** Verifies client certificates against one CA bundle (the x509 authenticator's, or the front proxy's). */
export class ChainVerifier {
  /** The authority that signed each certificate seen, or why none did: signatures are checked once. */
  private readonly issuers = new WeakMap<X509Certificate, X509Certificate | string>();
  private readonly windows = new WeakMap<X509Certificate, { from: number; to: number }>();

  constructor(private readonly roots: X509Certificate[]) {}

  /** Why the certificate cannot be trusted now, or null when it can. */
  check(leaf: X509Certificate, now = new Date()): string | null {
    let root = this.issuers.get(leaf);
    if (root === undefined) this.issuers.set(leaf, (root = this.findIssuer(leaf)));
    if (typeof root === "string") return `verifying certificate ${describe(leaf)} failed: ${root}`;
    const t = now.getTime();
    for (const c of [leaf, root]) {
      const { from, to } = this.validity(c);
      if (t < from || t > to) {
        return `verifying certificate ${describe(leaf)} failed: x509: certificate has expired or is not yet valid: current time ${now.toISOString()} is ${t < from ? "before" : "after"} ${new Date(t < from ? from : to).toISOString()}`;
      }
    }
    return null;
  }

  /** A certificate's validity as numbers, read once: its date getters parse on every call. */
  private validity(c: X509Certificate): { from: number; to: number } {
    let v = this.windows.get(c);
    if (!v) this.windows.set(c, (v = { from: c.validFromDate.getTime(), to: c.validToDate.getTime() }));
    return v;
  }

  private findIssuer(leaf: X509Certificate): X509Certificate | string {
    const root = this.roots.find((r) => r.fingerprint256 === leaf.fingerprint256 || (leaf.checkIssued(r) && leaf.verify(r.publicKey)));
    if (!root) return "x509: certificate signed by unknown authority";
    if (!usableForClients(leaf) || !usableForClients(root)) return "x509: certificate specifies an incompatible key usage";
    return root;
  }
}

/**
 * The attributes of a subject as node:crypto prints it (`O=devs\nCN=alice`, values escaped as RFC 2253
 * escapes them: `\,` and `\C3\A9`), each type with its values in order.
 */
export function subjectOf(c: X509Certificate): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of c.subject.split("\n")) {
    const eq = line.indexOf("=");
    if (eq < 0) continue;
    const type = line.slice(0, eq);
    out.set(type, [...(out.get(type) ?? []), unescapeDN(line.slice(eq + 1))]);
  }
  return out;
}

const utf8 = new TextEncoder();

function unescapeDN(v: string): string {
  if (!v.includes("\\")) return v;
  const bytes: number[] = [];
  for (let i = 0; i < v.length; i++) {
    const hex = v[i] === "\\" ? /^[0-9A-Fa-f]{2}/.exec(v.slice(i + 1)) : null;
    if (hex) {
      bytes.push(parseInt(hex[0], 16));
      i += 2;
    } else {
      if (v[i] === "\\" && i + 1 < v.length) i++;
      bytes.push(...utf8.encode(v[i]));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** --client-ca-file: the verified client certificate's CommonName is the user, its Organizations the groups. */
export class X509Authenticator implements Authenticator {
  private readonly users = new WeakMap<X509Certificate, Authenticated | null>();

  constructor(private readonly verifier: ChainVerifier) {}

  authenticate(c: Credentials): Authenticated | null {
    const leaf = c.clientCertificates?.[0];
    if (!leaf) return null;
    const why = this.verifier.check(leaf);
    if (why) throw new AuthenticationError(why);
    let user = this.users.get(leaf);
    if (user === undefined) this.users.set(leaf, (user = userOf(leaf)));
    return user;
  }
}

/** A certificate without a CommonName names no one: no opinion, as upstream. */
function userOf(c: X509Certificate): Authenticated | null {
  const subject = subjectOf(c);
  const name = subject.get("CN")?.at(-1); // the last, as Go reads a subject
  return name ? { user: { name, groups: subject.get("O") ?? [] } } : null;
}
