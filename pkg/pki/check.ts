// A serving certificate and its key, checked before the server listens, so that a wrong file is named in
// one line instead of failing inside the TLS layer.
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { StartupError, reason } from "../server/startup-errors.ts";

const read = (file: string, what: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new StartupError(`cannot read ${what} ${file}: ${reason(e)}`);
  }
};

/** Reads a PEM certificate and private key; refuses unreadable files, other contents, and a key of another certificate. */
export function readServingPair(certFile: string, keyFile: string, names = { cert: "certificate", key: "private key" }) {
  const cert = read(certFile, names.cert), key = read(keyFile, names.key);
  let x509: X509Certificate;
  try { x509 = new X509Certificate(cert); } catch { throw new StartupError(`${names.cert} ${certFile} is not a PEM certificate`); }
  let pkey;
  try { pkey = createPrivateKey(key); } catch { throw new StartupError(`${names.key} ${keyFile} is not a PEM private key`); }
  if (!x509.checkPrivateKey(pkey)) throw new StartupError(`${names.key} ${keyFile} does not match ${names.cert} ${certFile}`);
  return { cert, key };
}
