// The cluster CA that signs approved CSRs: --cluster-signing-cert-file/-key-file, else the CA generated
// into the cert dir (when the server generated one; with no CA at hand no signer runs, as upstream's
// controller-manager without its signing files).
import { consola } from "consola";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ClusterSigner } from "../pki/csr-signer.ts";
import { reason } from "./startup-errors.ts";

export interface CsrSigningOptions {
  certFile?: string;
  keyFile?: string;
  /** --cluster-signing-duration */
  durationMs: number;
}

export const DEFAULT_SIGNING_DURATION_MS = 8760 * 3600_000;

/** The signer, or undefined when no CA is configured or generated; a named CA that cannot be read throws one line. */
export async function loadClusterSigner(o: CsrSigningOptions | undefined, certDir: string): Promise<ClusterSigner | undefined> {
  const durationMs = o?.durationMs ?? DEFAULT_SIGNING_DURATION_MS;
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
  try {
    return await ClusterSigner.load(cert, key, durationMs);
  } catch (e) {
    throw new Error(`--cluster-signing-cert-file ${certFile} and --cluster-signing-key-file ${keyFile} are not a usable CA: ${reason(e)}`);
  }
}
