// The admin kubeconfig that `kite up` writes, with the CA embedded.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import YAML from "yaml";
import { writePrivateFile } from "../pki/private.ts";

/** The admin kubeconfig; `token` is the admin credential kept in the data dir. */
export function writeKubeconfig(path: string, server: string, caPem: string, token: string) {
  const cfg = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "kite", cluster: { server, "certificate-authority-data": Buffer.from(caPem).toString("base64") } }],
    users: [{ name: "kite-admin", user: { token } }],
    contexts: [{ name: "kite", context: { cluster: "kite", user: "kite-admin", namespace: "default" } }],
    "current-context": "kite",
    preferences: {},
  };
  writePrivateFile(path, YAML.stringify(cfg));
}

/** The admin token: generated once into the data dir and reused, so kubeconfigs stay valid across restarts. */
export function adminToken(dir: string): string {
  const file = join(dir, "admin.token");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const token = randomBytes(24).toString("base64url");
  writePrivateFile(file, token + "\n");
  return token;
}
