// Encryption at rest (--encryption-provider-config): the raw store (the SQLite file, or etcd's own values)
// holds no plaintext Secret; keys rotate by re-writing every Secret; identity first writes plaintext again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import parse from "parse-prometheus-text-format";
import { startKmsPlugin, type KmsPlugin } from "../helpers/kms.ts";
import { tempDir } from "../helpers/processes.ts";
import { BACKEND, KITE, kubectl, startServer, type TestServer } from "../helpers/server.ts";

const dir = tempDir("kite-enc-");
const SECRET = "tops3cret-value-do-not-leak";
const key = (b: number) => Buffer.alloc(32, b).toString("base64");
let kms: KmsPlugin;
let etcdArgs: string[] = [];
let s: TestServer;

const config = (secretProviders: string, name: string) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
${secretProviders}
  - resources: [configmaps]
    providers:
      - kms: {name: testkms, endpoint: "unix://${kms.socket}", cachesize: 10, timeout: 3s}
  - resources: [serviceaccounts]
    providers:
${aesgcm("key3", 3)}`);
  return file;
};
const aescbc = (k: string, b: number) => `      - aescbc: {keys: [{name: ${k}, secret: "${key(b)}"}]}\n`;
const aesgcm = (k: string, b: number) => `      - aesgcm: {keys: [{name: ${k}, secret: "${key(b)}"}]}\n`;
const secretbox = (k: string, b: number) => `      - secretbox: {keys: [{name: ${k}, secret: "${key(b)}"}]}\n`;
const identity = "      - identity: {}\n";

async function restart(file: string) {
  if (s) expect(await s.stop()).toBe(0);
  s = await startServer([`--encryption-provider-config=${file}`, ...etcdArgs], join(dir, "data"));
}

/** The live values under a key prefix, as the store holds them (no API server in between). */
async function raw(prefix: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  if (BACKEND === "etcd") {
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const r = await fetch(`${etcdArgs[0]!.split("=")[1]}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: btoa(prefix), range_end: btoa(end) }) });
    for (const kv of ((await r.json()) as any).kvs ?? []) out.set(atob(kv.key), Buffer.from(kv.value, "base64"));
    return out;
  }
  const db = new Database(join(dir, "data", "state.db"), { readonly: true });
  try {
    const rows = db.query("SELECT key, value FROM kv k WHERE deleted = 0 AND rev = (SELECT max(rev) FROM kv WHERE key = k.key) AND key >= ? AND key < ?").all(prefix, prefix + "\uffff") as { key: string; value: string | Uint8Array }[];
    for (const r of rows) out.set(r.key, Buffer.from(r.value as never));
  } finally {
    db.close();
  }
  return out;
}

const secretData = async (name: string) => {
  const r = await s.call("GET", `/api/v1/namespaces/default/secrets/${name}`);
  expect(r.status).toBe(200);
  return Buffer.from(r.body.data.value, "base64").toString();
};
const createSecret = (name: string) => s.call("POST", "/api/v1/namespaces/default/secrets", { metadata: { name }, stringData: { value: `${SECRET}-${name}` } });

beforeAll(async () => {
  kms = await startKmsPlugin();
  if (BACKEND === "etcd") {
    const { startEtcd } = await import("../helpers/etcd.ts");
    etcdArgs = [`--etcd-servers=${(await startEtcd()).endpoints[0]}`];
  }
});
afterAll(async () => { await s?.stop(); kms.close(); });

test("a bad config, or a KMS plugin not there, stops the server with one line saying why", async () => {
  const start = async (providers: string) => {
    const file = join(dir, `bad-${Math.random()}.yaml`);
    writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n${providers}`);
    const p = Bun.spawn([...KITE, "apiserver", "--bind-address=127.0.0.1", "--secure-port=1", `--data-dir=${join(dir, "bad")}`, `--encryption-provider-config=${file}`], { stdout: "pipe", stderr: "pipe" });
    const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
    expect(code).toBe(1);
    const lines = err.trim().split("\n");
    expect(lines).toHaveLength(1);
    return { file, line: lines[0]! };
  };
  const bad = await start(`      - aescbc: {keys: [{name: k, secret: "${Buffer.alloc(7).toString("base64")}"}]}\n`);
  expect(bad.line).toContain(bad.file);
  expect(bad.line).toContain("secret is not of the expected length, got 7");
  const absent = await start(`      - kms: {name: gone, endpoint: "unix://${join(dir, "nothing.sock")}"}\n`);
  expect(absent.line).toContain(`KMS plugin unix://${join(dir, "nothing.sock")}`);
});

test("Secrets (aescbc), ConfigMaps (kms envelope) and ServiceAccounts (aesgcm) are stored encrypted, read back in the clear", async () => {
  await restart(config(aescbc("key1", 1) + identity, "one"));
  expect((await createSecret("s1")).status).toBe(201);
  const cm = await s.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "cm1" }, data: { value: SECRET } });
  expect(cm.status).toBe(201);
  expect(kms.calls.Version).toBeGreaterThan(0);
  expect(kms.calls.Encrypt).toBeGreaterThan(0);
  const secrets = await raw("/registry/secrets/");
  expect(secrets.size).toBeGreaterThan(0);
  for (const [k, v] of secrets) {
    expect(v.subarray(0, 23).toString(), k).toBe("k8s:enc:aescbc:v1:key1:");
    expect(v.includes(SECRET), k).toBe(false);
    expect(v.includes(Buffer.from(`${SECRET}-s1`).toString("base64")), k).toBe(false);
  }
  const cms = await raw("/registry/configmaps/default/cm1");
  expect(cms.get("/registry/configmaps/default/cm1")!.subarray(0, 23).toString()).toBe("k8s:enc:kms:v1:testkms:");
  expect(cms.get("/registry/configmaps/default/cm1")!.includes(SECRET)).toBe(false);
  expect((await s.call("POST", "/api/v1/namespaces/default/serviceaccounts", { metadata: { name: "sa1" } })).status).toBe(201);
  const sa = (await raw("/registry/serviceaccounts/default/sa1")).get("/registry/serviceaccounts/default/sa1")!;
  expect(sa.subarray(0, 23).toString()).toBe("k8s:enc:aesgcm:v1:key3:");
  expect(sa.includes("sa1")).toBe(false);
  expect((await s.call("GET", "/api/v1/namespaces/default/serviceaccounts/sa1")).body.metadata.name).toBe("sa1");
  // other resources stay as they were
  const ns = await raw("/registry/namespaces/default");
  expect(ns.get("/registry/namespaces/default")!.includes("k8s:enc:")).toBe(false);
  expect(await secretData("s1")).toBe(`${SECRET}-s1`);
  const listed = await kubectl(s, ["get", "configmap", "cm1", "-o", "jsonpath={.data.value}"]);
  expect(listed.out).toBe(SECRET);
});

test("rotation: new key first, re-write every Secret, old key dropped; identity first writes plaintext", async () => {
  // the new key writes, the old one still reads; no KMS data key is cached after a restart
  const decrypts = kms.calls.Decrypt!;
  await restart(config(secretbox("key2", 2) + aescbc("key1", 1), "two"));
  expect(await secretData("s1")).toBe(`${SECRET}-s1`);
  expect((await s.call("GET", "/api/v1/namespaces/default/configmaps/cm1")).body.data.value).toBe(SECRET);
  expect(kms.calls.Decrypt!).toBeGreaterThan(decrypts);
  const rewrite = Bun.spawn(["sh", "-c", `kubectl --kubeconfig=${s.kubeconfig} get secrets -A -o json | kubectl --kubeconfig=${s.kubeconfig} replace -f -`], { stdout: "pipe", stderr: "pipe" });
  expect(await rewrite.exited, await new Response(rewrite.stderr).text()).toBe(0);
  for (const [k, v] of await raw("/registry/secrets/")) expect(v.subarray(0, 26).toString(), k).toBe("k8s:enc:secretbox:v1:key2:");

  const metrics = parse(await (await s.req("/metrics")).text());
  const ops = metrics.find((f) => f.name === "apiserver_storage_transformation_operations_total")!;
  expect(ops.metrics.some((m) => m.labels?.transformation_type === "from_storage" && m.labels.transformer_prefix === "k8s:enc:aescbc:v1:" && m.labels.status === "OK")).toBe(true);
  expect(ops.metrics.some((m) => m.labels?.transformation_type === "to_storage" && m.labels.transformer_prefix === "k8s:enc:secretbox:v1:")).toBe(true);
  expect(metrics.find((f) => f.name === "apiserver_storage_transformation_duration_seconds")?.type).toBe("HISTOGRAM");
  expect(Number(metrics.find((f) => f.name === "apiserver_storage_envelope_transformation_cache_misses_total")!.metrics[0]!.value)).toBeGreaterThanOrEqual(1);

  expect((await createSecret("s2")).status).toBe(201);

  // the old key is gone and identity comes first: new writes are plaintext, everything else still reads
  await restart(config(identity + secretbox("key2", 2), "three"));
  expect((await createSecret("s3")).status).toBe(201);
  const s3 = (await raw("/registry/secrets/default/s3")).get("/registry/secrets/default/s3")!;
  expect(s3.includes("k8s:enc:")).toBe(false);
  expect(s3.includes(Buffer.from(`${SECRET}-s3`).toString("base64"))).toBe(true);
  for (const n of ["s1", "s2", "s3"]) expect(await secretData(n)).toBe(`${SECRET}-${n}`);
  const all = await kubectl(s, ["get", "secrets", "-n", "default", "-o", "name"]);
  expect(all.out).toContain("secret/s2");
});
