// Benchmark of the API server against the raw store, measured in the same run (issue 2 item 11).
// Run: npm run bench  (builds dist/kite, then prints a Markdown table for docs/PERFORMANCE.md)
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startServer } from "../helpers/server.ts";
import { load, progress } from "./load.ts";
import { tempDir } from "../helpers/processes.ts";

const VALUE = "x".repeat(1024);
const N_CREATE = Number(process.env.N_CREATE ?? 20000);
const N_GET = Number(process.env.N_GET ?? 40000);
const N_LIST = 10000;


function raw() {
  progress("raw bun:sqlite");
  const dir = tempDir("kite-bench-raw-");
  const db = new Database(join(dir, "raw.db"));
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
  db.exec("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  const ins = db.prepare("INSERT INTO kv (key, value) VALUES (?, ?)");
  const get = db.prepare("SELECT value FROM kv WHERE key = ?");
  const scan = db.prepare("SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key");
  // Inserts: one fsynced transaction per 64 rows, the batch a concurrency of 64 gives a group commit.
  const insertBatch = db.transaction((base: number) => { for (let j = 0; j < 64; j++) ins.run(`/registry/configmaps/bench/cm-${base + j}`, VALUE); });
  let t0 = performance.now();
  for (let i = 0; i < N_CREATE; i += 64) insertBatch(i);
  const inserts = N_CREATE / ((performance.now() - t0) / 1000);
  const insert1 = (() => {
    const n = 500;
    const t = performance.now();
    for (let i = 0; i < n; i++) ins.run(`/registry/configmaps/one/cm-${i}`, VALUE);
    return n / ((performance.now() - t) / 1000);
  })();
  t0 = performance.now();
  for (let i = 0; i < N_GET; i++) get.get(`/registry/configmaps/bench/cm-${i % N_CREATE}`);
  const gets = N_GET / ((performance.now() - t0) / 1000);
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    t0 = performance.now();
    const rows = scan.all("/registry/configmaps/bench/", "/registry/configmaps/bench0") as unknown[];
    if (rows.length < N_LIST) throw new Error("scan short");
    best = Math.min(best, performance.now() - t0);
  }
  db.close();
  return { inserts, insert1, gets, listMs: best };
}

async function api() {
  let t0 = performance.now();
  const first = await startServer(["--etcd-compaction-interval=0"]);
  const firstReadyMs = performance.now() - t0; // includes generating the CA and serving certificate
  await first.stop();
  t0 = performance.now();
  const s = await startServer(["--etcd-compaction-interval=0"], first.dataDir);
  const readyMs = performance.now() - t0;
  await Bun.sleep(1000);
  const rssMB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.proc.pid}/status`, "utf8"))![1]) / 1024;
  await s.call("POST", "/api/v1/namespaces", { metadata: { name: "bench" } });
  const body = (i: number) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` }, data: { v: VALUE } });
  const post = (i: number) => s.req("/api/v1/namespaces/bench/configmaps", { method: "POST", json: body(i) }).then(async (r) => {
    if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${await r.text()}`);
  });
  progress("API creates, concurrency 1");
  const c1 = await load(1000, 1, (i) => post(1_000_000 + i));
  progress("API creates, concurrency 64");
  const c64 = await load(N_CREATE, 64, post);
  const get = (i: number) => s.req(`/api/v1/namespaces/bench/configmaps/cm-${i % N_CREATE}`).then(async (r) => {
    if (r.status !== 200) throw new Error(`get: ${r.status}`);
    await r.arrayBuffer();
  });
  progress("API gets, concurrency 1");
  const g1 = await load(3000, 1, get);
  progress("API gets, concurrency 64");
  const g64 = await load(N_GET, 64, get);
  progress("API LIST of 10,000");
  // A namespace holding exactly 10,000 configmaps.
  await s.call("POST", "/api/v1/namespaces", { metadata: { name: "list" } });
  await load(N_LIST, 64, (i) => s.req("/api/v1/namespaces/list/configmaps", { method: "POST", json: JSON.stringify({ metadata: { name: `cm-${i}` }, data: { v: VALUE } }) }));
  /** Best of 5 LISTs; `encoding` is what the client accepts (Bun's fetch asks for gzip unless told otherwise). */
  const timeList = async (encoding: string) => {
    let best = Infinity, bytes = 0;
    for (let r = 0; r < 5; r++) {
      const t = performance.now();
      const res = await s.req("/api/v1/namespaces/list/configmaps", { headers: { "Accept-Encoding": encoding }, decompress: false } as RequestInit);
      const buf = await res.arrayBuffer();
      best = Math.min(best, performance.now() - t);
      bytes = buf.byteLength;
      if (encoding === "identity" && (JSON.parse(new TextDecoder().decode(buf)).items as unknown[]).length !== N_LIST) throw new Error("list short");
    }
    return { best, bytes };
  };
  const plain = await timeList("identity");
  const gz = await timeList("gzip");
  await s.stop();
  return { firstReadyMs, readyMs, rssMB, c1, c64, g1, g64, listMs: plain.best, listBytes: plain.bytes, gzMs: gz.best, gzBytes: gz.bytes };
}

const r = raw();
const a = await api();
const f = (n: number) => Math.round(n).toLocaleString("en-US");
const pct = (x: number, y: number) => `${Math.round((100 * x) / y)} %`;
console.log(`
| measure | Kite API | raw bun:sqlite | API / raw | target |
|---|---|---|---|---|
| creates/s, concurrency 1 (1 KB configmaps) | ${f(a.c1)} | ${f(r.insert1)} (one fsynced insert each) | ${pct(a.c1, r.insert1)} | |
| creates/s, concurrency 64 | ${f(a.c64)} | ${f(r.inserts)} (64 rows per commit) | ${pct(a.c64, r.inserts)} | ≥ 8,000 |
| gets/s, concurrency 1 | ${f(a.g1)} | ${f(r.gets)} (point SELECT) | ${pct(a.g1, r.gets)} | |
| gets/s, concurrency 64 | ${f(a.g64)} | ${f(r.gets)} | ${pct(a.g64, r.gets)} | ≥ 25,000 |
| LIST of 10,000 configmaps (ms, best of 5; ${(a.listBytes / 1e6).toFixed(1)} MB) | ${a.listMs.toFixed(1)} | ${r.listMs.toFixed(1)} (indexed range scan) | ${(a.listMs / r.listMs).toFixed(2)}× | ≤ 1.5× raw |
| LIST of 10,000 with Accept-Encoding: gzip (ms; ${(a.gzBytes / 1e6).toFixed(2)} MB on the wire) | ${a.gzMs.toFixed(1)} | | | |
| start to ready (ms, process spawn to first 200 on /readyz) | ${a.readyMs.toFixed(0)} (first start, generating certificates: ${a.firstReadyMs.toFixed(0)}) | | | ≤ 300 |
| idle RSS (MB) | ${a.rssMB.toFixed(1)} | | | ≤ 80 |
`);
process.exit(0);
