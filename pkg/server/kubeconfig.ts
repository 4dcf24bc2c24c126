// The admin kubeconfig that `kite up` writes: the CA and the admin's client certificate embedded.
import YAML from "yaml";
import type { ClientCert } from "../pki/certs.ts";
import { writePrivateFile } from "../pki/private.ts";

const b64 = (pem: string) => Buffer.from(pem).toString("base64");

export function writeKubeconfig(path: string, server: string, caPem: string, admin: ClientCert) {
  const cfg = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "kite", cluster: { server, "certificate-authority-data": b64(caPem) } }],
    users: [{ name: "kite-admin", user: { "client-certificate-data": b64(admin.cert), "client-key-data": b64(admin.key) } }],
    contexts: [{ name: "kite", context: { cluster: "kite", user: "kite-admin", namespace: "default" } }],
    "current-context": "kite",
    preferences: {},
  };
  writePrivateFile(path, YAML.stringify(cfg));
}
