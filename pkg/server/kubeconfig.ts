// The admin kubeconfig that `kite up` writes, with the CA embedded.
import { writeFileSync } from "node:fs";
import YAML from "yaml";

export function writeKubeconfig(path: string, server: string, caPem: string) {
  const cfg = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "kite", cluster: { server, "certificate-authority-data": Buffer.from(caPem).toString("base64") } }],
    users: [{ name: "kite-admin", user: {} }],
    contexts: [{ name: "kite", context: { cluster: "kite", user: "kite-admin", namespace: "default" } }],
    "current-context": "kite",
    preferences: {},
  };
  writeFileSync(path, YAML.stringify(cfg), { mode: 0o600 });
}
