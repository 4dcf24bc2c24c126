// --storage-media-type: values stored in the binary media type (as upstream stores them), readable by
// clients as usual, by a restarted server in either mode, and carried by `kite datastore`.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { decodeObject } from "../../pkg/protobuf/index.ts";
import { KITE, startServer } from "../helpers/server.ts";
import { startEtcd } from "../helpers/etcd.ts";
import { tempDir } from "../helpers/processes.ts";

const BINARY = "--storage-media-type=application/vnd.kubernetes.protobuf";
const SQLITE = "--storage-backend=sqlite"; // these tests read the SQLite file, whatever backend the suite runs on
const dep = {
  apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", labels: { app: "web" } },
  spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx:1.25" }] } } },
};
const stored = (dir: string, key: string) => {
  const db = new Database(join(dir, "state.db"), { readonly: true });
  const row = db.query("SELECT value FROM kv WHERE key = ? ORDER BY rev DESC LIMIT 1").get(key) as { value: string | Uint8Array };
  db.close();
  return row.value;
};

let etcdStop: (() => Promise<void>) | undefined;
afterAll(async () => { await etcdStop?.(); });

test("on SQLite: values are protobuf with the 4-byte prefix, clients see JSON, and a JSON-mode restart still reads them", async () => {
  const s = await startServer([BINARY, SQLITE]);
  expect((await s.call("POST", "/apis/apps/v1/namespaces/default/deployments", dep)).status).toBe(201);
  const v = stored(s.dataDir, "/registry/deployments/default/web");
  expect(v).toBeInstanceOf(Uint8Array);
  expect([...(v as Uint8Array).slice(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
  expect(decodeObject(v as Uint8Array).spec.replicas).toBe(2);
  const got = await s.call("GET", "/apis/apps/v1/namespaces/default/deployments/web");
  expect(got.body.spec.template.spec.containers[0].image).toBe("nginx:1.25");
  // An update of an unchanged object writes nothing, in this mode too.
  const same = await s.call("PUT", "/apis/apps/v1/namespaces/default/deployments/web", got.body);
  expect(same.body.metadata.resourceVersion).toBe(got.body.metadata.resourceVersion);
  await s.stop();

  const j = await startServer([SQLITE], s.dataDir); // JSON mode now: old values still decode, new ones are JSON
  expect((await j.call("GET", "/apis/apps/v1/namespaces/default/deployments/web")).body.spec.replicas).toBe(2);
  await j.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "later" }, data: { a: "b" } });
  expect(typeof stored(s.dataDir, "/registry/configmaps/default/later")).toBe("string");
  await j.stop();
});

test("kite datastore moves binary values byte for byte", async () => {
  const s = await startServer([BINARY, SQLITE]);
  await s.call("POST", "/apis/apps/v1/namespaces/default/deployments", dep);
  await s.stop();
  const file = join(tempDir("kite-media-"), "dump.jsonl");
  expect(Bun.spawnSync([...KITE, "datastore", "export", `--data-dir=${s.dataDir}`, "-o", file]).exitCode).toBe(0);
  const to = tempDir("kite-media-");
  expect(Bun.spawnSync([...KITE, "datastore", "import", `--data-dir=${to}`, "-f", file]).exitCode).toBe(0);
  const a = stored(s.dataDir, "/registry/deployments/default/web") as Uint8Array;
  const b = stored(to, "/registry/deployments/default/web") as Uint8Array;
  expect(Buffer.compare(a, b)).toBe(0);
});

test("on etcd: the value under /registry/... starts with the prefix, as an upstream apiserver writes it", async () => {
  const etcd = await startEtcd();
  etcdStop = etcd.stop;
  const s = await startServer([BINARY, `--etcd-servers=${etcd.endpoints[0]}`]);
  await s.call("POST", "/apis/apps/v1/namespaces/default/deployments", dep);
  const key = Buffer.from("/registry/deployments/default/web").toString("base64");
  const r = (await (await fetch(`${etcd.endpoints[0]}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key }) })).json()) as { kvs: { value: string }[] };
  const bytes = Buffer.from(r.kvs[0].value, "base64");
  expect([...bytes.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
  expect(decodeObject(new Uint8Array(bytes)).metadata.name).toBe("web");
  expect((await s.call("GET", "/apis/apps/v1/namespaces/default/deployments/web")).body.spec.replicas).toBe(2);
  await s.stop();
});
