// The kube-system/extension-apiserver-authentication ConfigMap: how this server authenticates clients
// (its client CA, the front proxy's CA and headers), published at start as upstream publishes it, so
// extension API servers can trust the same certificates. Several servers on one store each add theirs:
// CA bundles and header lists are merged with what is there, never replaced.
import { readFileSync } from "node:fs";
import type { Registry } from "../registry/registry.ts";
import type { AuthOptions } from "./config.ts";

const NAMESPACE = "kube-system";
const NAME = "extension-apiserver-authentication";

/** The ConfigMap's data this server needs in it (upstream's keys; lists as JSON arrays). */
function wanted(o: AuthOptions): Record<string, string> {
  const data: Record<string, string> = {};
  const x = o.x509;
  if (x?.clientCAFile) data["client-ca-file"] = readFileSync(x.clientCAFile, "utf8");
  const rh = x?.requestHeader;
  if (rh) {
    data["requestheader-client-ca-file"] = readFileSync(rh.clientCAFile, "utf8");
    data["requestheader-username-headers"] = JSON.stringify(rh.usernameHeaders);
    data["requestheader-group-headers"] = JSON.stringify(rh.groupHeaders);
    data["requestheader-extra-headers-prefix"] = JSON.stringify(rh.extraHeaderPrefixes);
    data["requestheader-allowed-names"] = JSON.stringify(rh.allowedNames);
  }
  return data;
}

const pemBlocks = (pem = "") => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

/** What is there plus what is wanted: certificates and list entries kept once, the existing ones first. */
function merged(have: Record<string, string>, want: Record<string, string>): Record<string, string> {
  const out = { ...have };
  for (const [k, v] of Object.entries(want)) {
    if (k.endsWith("-file")) out[k] = [...new Set([...pemBlocks(have[k]), ...pemBlocks(v)])].join("\n") + "\n";
    else out[k] = JSON.stringify([...new Set([...parseList(have[k]), ...JSON.parse(v)])]);
  }
  return out;
}

function parseList(v: string | undefined): string[] {
  try {
    const l = JSON.parse(v ?? "[]");
    return Array.isArray(l) ? l.map(String) : [];
  } catch {
    return [];
  }
}

/** Creates or merges the ConfigMap; nothing to publish without a client CA or a front proxy. */
export async function publishAuthentication(registry: Registry, o: AuthOptions): Promise<void> {
  const want = wanted(o);
  if (!Object.keys(want).length) return;
  const cms = registry.lookup("", "v1", "configmaps")!;
  try {
    await cms.create(NAMESPACE, { metadata: { name: NAME, namespace: NAMESPACE }, data: want });
  } catch (e) {
    if ((e as { code?: number }).code !== 409) throw e;
    await cms.guaranteedUpdate(NAMESPACE, NAME, (cur) => ({ ...cur, data: merged(cur.data ?? {}, want) }));
  }
}
