// The node agent's client-certificate bootstrap (upstream kubelet's --bootstrap-kubeconfig): when the
// --kubeconfig file is missing or its client certificate is not valid now, the agent uses the bootstrap
// kubeconfig (a bootstrap token, typically) to ask for a certificate as system:node:NAME in system:nodes —
// a CertificateSigningRequest to kubernetes.io/kube-apiserver-client-kubelet — waits until it is approved
// and issued, keeps certificate and key in --cert-dir, and writes --kubeconfig to use them.
import "reflect-metadata";
import { createHash, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { consola } from "consola";
import { Client } from "../client/client.ts";
import { loadClientConfig } from "../client/kubeconfig.ts";
import { Transport } from "../client/transport.ts";
import { certificateRequest, createRequest, EC, issued, newKeyPair, storePair, type KeyPair } from "./csr.ts";

export interface BootstrapOptions {
  /** --kubeconfig: read when its certificate is good, else written. */
  kubeconfig: string;
  /** --bootstrap-kubeconfig: the credentials that may ask for a certificate. */
  bootstrapKubeconfig: string;
  /** --cert-dir: where the key and the issued certificate are kept. */
  certDir: string;
  nodeName: string;
}

export const SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";
/** Upstream's usages for a kubelet client certificate. */
export const USAGES = ["digital signature", "key encipherment", "client auth"];

/** The certificate of a kubeconfig is usable now (or it has none: some other credential is). */
async function stillValid(kubeconfig: string): Promise<boolean> {
  if (!existsSync(kubeconfig)) return false;
  try {
    const { cert } = await loadClientConfig({ kubeconfig }, {});
    if (!cert) return true;
    const c = new X509Certificate(cert);
    const now = Date.now();
    return Date.parse(c.validFrom) <= now && now < Date.parse(c.validTo);
  } catch (e) {
    consola.warn(`--kubeconfig ${kubeconfig} is not usable, bootstrapping a new client certificate: ${(e as Error).message}`);
    return false;
  }
}

/** The private key kept from an earlier attempt (so its request is found again), else a new one kept for the next. */
async function keyPair(file: string): Promise<KeyPair> {
  if (existsSync(file)) {
    const text = readFileSync(file, "utf8");
    const der = Buffer.from(text.replace(/-----[A-Z ]+-----|\s/g, ""), "base64");
    const privateKey = await crypto.subtle.importKey("pkcs8", der, EC, true, ["sign"]);
    const jwk = await crypto.subtle.exportKey("jwk", privateKey);
    const publicKey = await crypto.subtle.importKey("jwk", { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, EC, true, ["verify"]);
    return { keys: { privateKey, publicKey }, pem: text };
  }
  const made = await newKeyPair();
  writeFileSync(file, made.pem, { mode: 0o600 });
  return made;
}

/** Makes sure --kubeconfig holds a valid client certificate, asking for one with the bootstrap credentials if not. */
export async function bootstrapClientCertificate(o: BootstrapOptions, signal?: AbortSignal): Promise<void> {
  if (await stillValid(o.kubeconfig)) return;
  const boot = await loadClientConfig({ kubeconfig: o.bootstrapKubeconfig }, {});
  const client = new Client(new Transport(boot));
  mkdirSync(o.certDir, { recursive: true, mode: 0o700 });
  const keyFile = join(o.certDir, "kubelet-client.key.tmp");
  const { keys, pem: keyPem } = await keyPair(keyFile);
  const subject = `CN=system:node:${o.nodeName}, O=system:nodes`;
  const request = await certificateRequest(subject, keys);
  // named after key, subject and usages: a restarted agent finds its own request again
  const publicDer = Buffer.from(await crypto.subtle.exportKey("spki", keys.publicKey));
  const name = `node-csr-${createHash("sha256").update(publicDer).update(subject).update(USAGES.join(",")).digest("base64url").slice(0, 43)}`;
  await createRequest(client, request, SIGNER, USAGES, name);
  consola.info(`waiting for the client certificate: CertificateSigningRequest ${name} to be approved and issued`);
  const cert = await issued(client, name, signal);
  const current = storePair(o.certDir, "kubelet-client", cert, keyPem);
  rmSync(keyFile, { force: true });

  const cluster = { server: boot.server, ...(boot.insecure ? { "insecure-skip-tls-verify": true } : boot.ca ? { "certificate-authority-data": Buffer.from(boot.ca).toString("base64") } : {}) };
  const kubeconfig = {
    apiVersion: "v1", kind: "Config",
    clusters: [{ name: "default-cluster", cluster }],
    users: [{ name: "default-auth", user: { "client-certificate": current, "client-key": current } }],
    contexts: [{ name: "default-context", context: { cluster: "default-cluster", user: "default-auth", namespace: "default" } }],
    "current-context": "default-context",
  };
  mkdirSync(dirname(o.kubeconfig), { recursive: true });
  writeFileSync(o.kubeconfig, JSON.stringify(kubeconfig, null, 2) + "\n", { mode: 0o600 });
  consola.info(`client certificate of system:node:${o.nodeName} written to ${current}; --kubeconfig ${o.kubeconfig} uses it`);
}
