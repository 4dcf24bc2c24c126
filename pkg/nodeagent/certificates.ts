// The agent's two rotated certificates (--rotate-certificates, --rotate-server-certificates): what each asks
// for and where each goes once issued.
import { X509Certificate } from "node:crypto";
import { hostname } from "node:os";
import { consola } from "consola";
import type { Client } from "../client/client.ts";
import { SIGNER as CLIENT_SIGNER, USAGES as CLIENT_USAGES } from "./bootstrap.ts";
import { rotateCertificates } from "./certrotation.ts";
import { certificatesOf, keyOf, readCurrent, storePair, type CurrentPair } from "./csr.ts";
import type { NodeAgentOptions } from "./options.ts";
import type { AgentServers } from "./server/server.ts";

const SERVING_SIGNER = "kubernetes.io/kubelet-serving";
/** Upstream's usages for a kubelet serving certificate. */
const SERVING_USAGES = ["digital signature", "key encipherment", "server auth"];
export const SERVING_PREFIX = "kubelet-server";
const CLIENT_PREFIX = "kubelet-client";

const validNow = (p: CurrentPair | undefined) => (p && p.notBefore <= Date.now() && Date.now() < p.notAfter ? p : undefined);

/** The serving certificate the cluster issued earlier, when it is still good: served from the start. */
export function issuedServingPair(o: NodeAgentOptions): CurrentPair | undefined {
  return o.rotateServerCertificates ? validNow(readCurrent(o.serving.certDir, SERVING_PREFIX)) : undefined;
}

/** Starts the rotations the options ask for; they end with `signal`. */
export function startCertificateRotation(o: NodeAgentOptions, client: Client, servers: AgentServers, nodeIP: string, signal: AbortSignal): void {
  const subject = `CN=system:node:${o.nodeName}, O=system:nodes`;
  const certDir = o.serving.certDir;
  const failed = (kind: string) => (e: unknown) => consola.error(`${kind} certificate rotation stopped: ${(e as Error).message}`);
  if (o.rotateCertificates) {
    const { cert, key } = client.config;
    if (!cert || !key) consola.warn("--rotate-certificates: the kubeconfig has no client certificate to rotate");
    else {
      // a certificate from --kubeconfig itself (not from the bootstrap) is the first one kept in --cert-dir
      const kept = readCurrent(certDir, CLIENT_PREFIX);
      const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
      if (!kept || fingerprint(kept.cert) !== fingerprint(certificatesOf(cert))) storePair(certDir, CLIENT_PREFIX, certificatesOf(cert), keyOf(key));
      rotateCertificates({
        client, certDir, prefix: CLIENT_PREFIX, kind: "client", signerName: CLIENT_SIGNER, usages: CLIENT_USAGES, subject,
        onIssued: (p) => client.transport.setClientCertificate(p.cert, p.key),
      }, signal).catch(failed("client"));
    }
  }
  if (o.rotateServerCertificates) {
    const dns = [...new Set([hostname(), o.nodeName])];
    rotateCertificates({
      client, certDir, prefix: SERVING_PREFIX, kind: "serving", signerName: SERVING_SIGNER, usages: SERVING_USAGES, subject,
      sans: { dns, ips: [nodeIP] }, onIssued: (p) => servers.serveCertificate(p),
    }, signal).catch(failed("serving"));
  }
}
