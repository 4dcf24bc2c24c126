// The cluster CA that signs approved CSRs: --cluster-signing-cert-file/-key-file, else the CA generated
// into the cert dir (when the server generated one; with no CA at hand no signer runs, as upstream's
// controller-manager without its signing files). The pair is checked at start with node:crypto; the
// signer's X.509 library is loaded when the first certificate is issued.
import { consola } from "consola";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ClusterSigner, SignerSource } from "../pki/csr-signer.ts";
import { reason } from "./startup-errors.ts";

export interface CsrSigningOptions {
  certFile?: string;
  keyFile?: string;
  /** --cluster-signing-duration */
  durationMs: number;
}

export const DEFAULT_SIGNING_DURATION_MS = 8760 * 3600_000;

/** The signer's source, or undefined when no CA is configured or generated; a named CA that cannot be used throws one line. */
export function clusterSigner(o: CsrSigningOptions | undefined, certDir: string): SignerSource | undefined {
  let certFile = o?.certFile, keyFile = o?.keyFile;
  if (!certFile || !keyFile) {
    certFile = join(certDir, "ca.crt");
    keyFile = join(certDir, "ca.key");
    if (!existsSync(certFile) || !existsSync(keyFile)) {
      consola.info("no cluster signing CA (--cluster-signing-cert-file): approved CSRs of the kubernetes.io signers are not signed");
      return undefined;
    }
  }
  const read = (f: string, flag: string) => {
    try { return readFileSync(f, "utf8"); } catch (e) { throw new Error(`cannot read --${flag} ${f}: ${reason(e)}`); }
  };
  const cert = read(certFile, "cluster-signing-cert-file"), key = read(keyFile, "cluster-signing-key-file");
  let usable: boolean;
  try {
    usable = new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch (e) {
    throw new Error(`--cluster-signing-cert-file ${certFile} and --cluster-signing-key-file ${keyFile} are not a usable CA: ${reason(e)}`);
  }
  if (!usable) throw new Error(`--cluster-signing-key-file ${keyFile} does not match --cluster-signing-cert-file ${certFile}`);
  let signer: Promise<ClusterSigner> | undefined;
  return () => (signer ??= import("../pki/csr-signer.ts").then((m) => m.ClusterSigner.load(cert, key, o?.durationMs ?? DEFAULT_SIGNING_DURATION_MS)));
}
