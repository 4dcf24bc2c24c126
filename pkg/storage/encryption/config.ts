// --encryption-provider-config: an EncryptionConfiguration (apiserver.config.k8s.io/v1) read as upstream
// v1.21 reads it. Each `resources` entry names group resources and an ordered provider list: the first
// provider writes, every provider reads.
import { readFileSync } from "node:fs";
import YAML from "yaml";

export type ProviderConfig =
  | { type: "identity" }
  | { type: "aescbc" | "aesgcm" | "secretbox"; keys: { name: string; secret: Buffer }[] }
  | { type: "kms"; name: string; endpoint: string; cacheSize: number; timeoutMs: number };

export interface ResourceConfig { resources: string[]; providers: ProviderConfig[] }

/** Key sizes each cipher takes, in bytes. */
const KEY_SIZES: Record<string, number[]> = { aescbc: [16, 24, 32], aesgcm: [16, 24, 32], secretbox: [32] };
const PROVIDERS = ["identity", "aescbc", "aesgcm", "secretbox", "kms"];

/** Reads and checks the file; any problem throws one line naming the file and the problem. */
export function loadEncryptionConfig(file: string): ResourceConfig[] {
  try {
    return parseEncryptionConfig(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`error while parsing encryption provider configuration file "${file}": ${(e as Error).message}`);
  }
}

export function parseEncryptionConfig(text: string): ResourceConfig[] {
  const doc = YAML.parse(text) as Record<string, any> | null;
  if (!doc || typeof doc !== "object") throw new Error("the file is empty");
  if (doc.kind !== "EncryptionConfiguration") throw new Error(`invalid configuration kind "${doc.kind ?? ""}" provided`);
  if (doc.apiVersion !== "apiserver.config.k8s.io/v1") throw new Error(`unsupported apiVersion "${doc.apiVersion ?? ""}": expected apiserver.config.k8s.io/v1`);
  const resources = doc.resources;
  if (!Array.isArray(resources) || resources.length === 0) throw new Error("resources: Required value: at least one resource must be specified");
  return resources.map((r: any, i: number) => {
    const at = `resources[${i}]`;
    if (!Array.isArray(r?.resources) || r.resources.length === 0) throw new Error(`${at}.resources: Required value: at least one resource must be specified`);
    if (!Array.isArray(r.providers) || r.providers.length === 0) throw new Error(`${at}.providers: Required value: at least one provider must be specified`);
    return { resources: r.resources.map(String), providers: r.providers.map((p: any, j: number) => provider(p, `${at}.providers[${j}]`)) };
  });
}

function provider(p: Record<string, any>, at: string): ProviderConfig {
  const names = Object.keys(p ?? {});
  if (names.length !== 1) throw new Error(`${at}: Invalid value: more than one provider specified in a single element, should split into different list elements`);
  const type = names[0]!;
  if (!PROVIDERS.includes(type)) throw new Error(`${at}: Invalid value: unknown provider "${type}" (expected one of ${PROVIDERS.join(", ")})`);
  const c = p[type] ?? {};
  if (type === "identity") return { type };
  if (type === "kms") {
    if (!c.name) throw new Error(`${at}.kms.name: Required value`);
    if (!/^unix:\/\/./.test(String(c.endpoint ?? ""))) throw new Error(`${at}.kms.endpoint: Invalid value: "${c.endpoint ?? ""}": unsupported scheme, only unix:// sockets are supported`);
    const cacheSize = c.cachesize ?? 1000;
    if (!Number.isInteger(cacheSize) || cacheSize === 0) throw new Error(`${at}.kms.cachesize: Invalid value: ${cacheSize}: cachesize must be a positive integer (or negative to disable the cache)`);
    return { type, name: String(c.name), endpoint: String(c.endpoint).slice("unix://".length), cacheSize, timeoutMs: c.timeout ? durationMs(c.timeout, `${at}.kms.timeout`) : 3000 };
  }
  const type3 = type as "aescbc" | "aesgcm" | "secretbox";
  if (!Array.isArray(c.keys) || c.keys.length === 0) throw new Error(`${at}.${type}.keys: Required value: provider config ${type} has no key`);
  const seen = new Set<string>();
  const keys = c.keys.map((k: any, j: number) => {
    const kat = `${at}.${type}.keys[${j}]`;
    if (!k?.name) throw new Error(`${kat}.name: Required value: key name is required`);
    if (seen.has(k.name)) throw new Error(`${kat}.name: Duplicate value: "${k.name}"`);
    seen.add(k.name);
    if (!k.secret) throw new Error(`${kat}.secret: Required value: secret is required`);
    const secret = Buffer.from(String(k.secret), "base64");
    if (secret.toString("base64").replace(/=+$/, "") !== String(k.secret).replace(/=+$/, "")) throw new Error(`${kat}.secret: Invalid value: REDACTED: secret is not a valid base64 string`);
    if (!KEY_SIZES[type3]!.includes(secret.length)) throw new Error(`${kat}.secret: Invalid value: REDACTED: secret is not of the expected length, got ${secret.length}, expected one of ${KEY_SIZES[type3]!.join(", ")}`);
    return { name: String(k.name), secret };
  });
  return { type: type3, keys };
}

function durationMs(v: unknown, at: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(String(v));
  if (!m) throw new Error(`${at}: Invalid value: "${v}": expected a duration such as 3s`);
  const n = Number(m[1]);
  return m[2] === "ms" ? n : m[2] === "m" ? n * 60000 : n * 1000;
}
