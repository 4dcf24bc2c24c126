// What the agent's certificate requests share (the bootstrap, client and serving rotation): a P-256 key, a
// CertificateSigningRequest for it, the wait until it is issued, and upstream's layout in --cert-dir — a dated
// PEM of certificate and key, and PREFIX-current.pem linking to it.
import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client, Obj } from "../client/client.ts";
import { ApiError } from "../client/errors.ts";
import { RESOURCES } from "../client/resources.ts";

export const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
const POLL_MS = 500;

export const pem = (label: string, der: ArrayBuffer) => `-----BEGIN ${label}-----\n${Buffer.from(der).toString("base64").match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;

export interface KeyPair { keys: CryptoKeyPair; pem: string }

export async function newKeyPair(): Promise<KeyPair> {
  const keys = await crypto.subtle.generateKey(EC, true, ["sign", "verify"]) as CryptoKeyPair;
  return { keys, pem: pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", keys.privateKey)) };
}

/** A PKCS#10 request (PEM) for `subject` ("CN=..., O=..."), with DNS names and IP addresses as SANs. */
export async function certificateRequest(subject: string, keys: CryptoKeyPair, sans: { dns?: string[]; ips?: string[] } = {}): Promise<string> {
  // loaded only to make a request: an agent given its certificates never needs the X.509 library
  const x509 = await import("@peculiar/x509");
  const names = [...(sans.dns ?? []).map((value) => ({ type: "dns" as const, value })), ...(sans.ips ?? []).map((value) => ({ type: "ip" as const, value }))];
  const extensions = names.length ? [new x509.SubjectAlternativeNameExtension(names)] : [];
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: EC, extensions })).toString("pem");
}

/** Creates the CSR (`name`, kept when it exists already; else a generated `csr-` name) and returns its name. */
export async function createRequest(client: Client, request: string, signerName: string, usages: string[], name?: string): Promise<string> {
  try {
    const made = await client.create(RESOURCES.certificatesigningrequests, {
      apiVersion: "certificates.k8s.io/v1", kind: "CertificateSigningRequest", metadata: name ? { name } : { generateName: "csr-" },
      spec: { request: Buffer.from(request).toString("base64"), signerName, usages },
    });
    return made.metadata.name;
  } catch (e) {
    if (name && e instanceof ApiError && e.code === 409) return name;
    throw e;
  }
}

/** Waits until the request has its certificate; a Denied or Failed condition ends the wait with upstream's words. */
export async function issued(client: Client, name: string, signal?: AbortSignal): Promise<string> {
  for (;;) {
    const o: Obj = await client.get(RESOURCES.certificatesigningrequests, name, { signal });
    for (const c of o.status?.conditions ?? []) {
      if (c.type === "Denied" && c.status !== "False") throw new Error(`certificate signing request is denied, reason: ${c.reason ?? ""}, message: ${c.message ?? ""}`);
      if (c.type === "Failed" && c.status !== "False") throw new Error(`certificate signing request failed, reason: ${c.reason ?? ""}, message: ${c.message ?? ""}`);
    }
    if (o.status?.certificate) return Buffer.from(o.status.certificate, "base64").toString("utf8");
    if (signal?.aborted) throw new Error("stopped while waiting for the certificate");
    await Bun.sleep(POLL_MS);
  }
}

/** Keeps certificate and key as PREFIX-DATE.pem in `certDir` and points PREFIX-current.pem at it; returns that link. */
export function storePair(certDir: string, prefix: string, cert: string, keyPem: string): string {
  const stamp = new Date().toISOString().replace(/T/, "-").replace(/:/g, "-").replace(/\..*$/, "");
  let dated = join(certDir, `${prefix}-${stamp}.pem`);
  // two in one second (a very short --cluster-signing-duration): the second gets a suffix
  for (let i = 1; existsSync(dated); i++) dated = join(certDir, `${prefix}-${stamp}.${i}.pem`);
  writeFileSync(dated, cert + keyPem, { mode: 0o600 });
  const current = currentFile(certDir, prefix);
  const link = `${current}.tmp`;
  rmSync(link, { force: true });
  symlinkSync(dated, link);
  renameSync(link, current);
  return current;
}

export const currentFile = (certDir: string, prefix: string) => join(certDir, `${prefix}-current.pem`);

/** The certificates of a PEM text (a file of certificate and key), and its private key. */
export const certificatesOf = (text: string) => text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g)?.join("") ?? "";
export const keyOf = (text: string) => text.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----\n?/)?.[0] ?? "";

export interface CurrentPair { cert: string; key: string; notBefore: number; notAfter: number }

/** PREFIX-current.pem's certificate and key, or undefined when there is none (or it cannot be read). */
export function readCurrent(certDir: string, prefix: string): CurrentPair | undefined {
  const file = currentFile(certDir, prefix);
  if (!existsSync(file)) return undefined;
  try {
    const text = readFileSync(file, "utf8");
    const cert = certificatesOf(text), key = keyOf(text);
    const c = new X509Certificate(cert);
    return { cert, key, notBefore: Date.parse(c.validFrom), notAfter: Date.parse(c.validTo) };
  } catch {
    return undefined;
  }
}
