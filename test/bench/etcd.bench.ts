// Benchmark of the API server on etcd against raw etcd, measured in the same run (issue 6 item 7).
// Run:  bun test/bench/etcd.bench.ts            (the server from source)
//       npm run build && KITE_BIN=dist/kite bun test/bench/etcd.bench.ts   (the built binary)
// Env:  N_CREATE (default 10000), N_GET (default 20000), CONC (default 64).
// Prints a Markdown table for docs/PERFORMANCE.md. "raw" is etcd through the same client the server uses
// (EtcdStore on etcd's JSON gateway), from this process, at the same concurrency and value size.
import { cpus } from "node:os";
import { EtcdStore } from "../../pkg/storage/etcd.ts";
import { etcdBinary, startEtcd } from "../helpers/etcd.ts";
import { startServer } from "../helpers/server.ts";
import { measured, progress } from "./load.ts";

const N_CREATE = Number(process.env.N_CREATE ?? 10_000);
const N_GET = Number(process.env.N_GET ?? 20_000);
const CONC = Number(process.env.CONC ?? 64);
const VALUE = "x".repeat(1024);
/** A stored ConfigMap of the same size as the API's, so raw writes move the same bytes. */
const stored = (ns: string, i: number) => JSON.stringify({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: `cm-${i}`, namespace: ns, uid: crypto.randomUUID(), creationTimestamp: new Date().toISOString() }, data: { v: VALUE } });


const etcd = await startEtcd({ extraArgs: ["--quota-backend-bytes=8589934592"] });
const etcdVersion = (Bun.spawnSync([etcdBinary(), "--version"]).stdout.toString().split("\n")[0] ?? "").replace("etcd Version: ", "");

async function raw(tag: string) {
  const st = new EtcdStore({ endpoints: etcd.endpoints });
  progress(`raw etcd puts (${tag}), concurrency ${CONC}`);
  const puts = await measured(N_CREATE, CONC, (i) => st.create(`/registry/configmaps/raw-${tag}/cm-${i}`, stored("raw", i)), { etcd: etcd.pid });
  progress(`raw etcd gets (${tag}), concurrency ${CONC}`);
  const gets = await measured(N_GET, CONC, async (i) => {
    const kv = await st.get(`/registry/configmaps/raw-${tag}/cm-${i % N_CREATE}`);
    if (!kv) throw new Error("raw get: missing");
    JSON.parse(kv.value as string);
  }, { etcd: etcd.pid });
  await st.close();
  return { puts, gets };
}

async function api() {
  const s = await startServer([`--etcd-servers=${etcd.endpoints[0]}`, "--etcd-compaction-interval=0"]);
  expectOk(await s.call("POST", "/api/v1/namespaces", { metadata: { name: "bench" } }), 201);
  const body = (i: number) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` }, data: { v: VALUE } });
  progress(`API creates, concurrency ${CONC}`);
  const pids = { etcd: etcd.pid, kite: s.proc.pid };
  const creates = await measured(N_CREATE, CONC, (i) => s.req("/api/v1/namespaces/bench/configmaps", { method: "POST", json: body(i) }).then(async (r) => {
    if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  }), pids);
  progress(`API gets, concurrency ${CONC}`);
  const gets = await measured(N_GET, CONC, (i) => s.req(`/api/v1/namespaces/bench/configmaps/cm-${i % N_CREATE}`).then(async (r) => {
    if (r.status !== 200) throw new Error(`get: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  }), pids);
  // What the server's watch costs: raw puts from this process while the server watches the key space.
  progress(`raw etcd puts while the server watches, concurrency ${CONC}`);
  const st = new EtcdStore({ endpoints: etcd.endpoints });
  const watched = await measured(N_CREATE, CONC, (i) => st.create(`/registry/configmaps/watched/cm-${i}`, stored("watched", i)), pids);
  await st.close();
  await s.stop();
  return { creates, gets, watched };
}

function expectOk(r: { status: number; body: unknown }, code: number) {
  if (r.status !== code) throw new Error(`expected ${code}, got ${r.status}: ${JSON.stringify(r.body)}`);
}

try {
  // raw before and after the API run, so drift (etcd's growing database, the machine) shows
  const r1 = await raw("a");
  const a = await api();
  const r2 = await raw("b");
  const rawPuts = (r1.puts.rate + r2.puts.rate) / 2, rawGets = (r1.gets.rate + r2.gets.rate) / 2;
  const f = (n: number) => Math.round(n).toLocaleString("en-US");
  const pctOf = (x: number, y: number) => `${Math.round((100 * x) / y)} %`;
  const cpu = (m: { cpu: Record<string, number> }) => Object.entries(m.cpu).map(([k, v]) => `${k} ${v}`).join(", ");
  const stolen = [r1.puts, r1.gets, a.creates, a.gets, a.watched, r2.puts, r2.gets].reduce((t, m) => t + m.stolen, 0);
  const cmd = `${process.env.KITE_BIN ? `KITE_BIN=${process.env.KITE_BIN} ` : ""}N_CREATE=${N_CREATE} N_GET=${N_GET} CONC=${CONC} bun test/bench/etcd.bench.ts`;
  console.log(`
### Kite on etcd vs raw etcd (concurrency ${CONC}, 1 KiB ConfigMaps)

Command: \`${cmd}\`
Machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, etcd ${etcdVersion} (one member, loopback), Bun ${Bun.version}; server ${process.env.KITE_BIN ? "binary" : "from source"}; ${stolen.toFixed(1)} CPU-seconds stolen by the host during the run.

| operation | Kite API on etcd | raw etcd (EtcdStore, same run) | API / raw |
|---|---:|---:|---:|
| creates/s vs puts/s | ${f(a.creates.rate)} | ${f(rawPuts)} (before ${f(r1.puts.rate)}, after ${f(r2.puts.rate)}) | ${pctOf(a.creates.rate, rawPuts)} |
| gets/s | ${f(a.gets.rate)} | ${f(rawGets)} (before ${f(r1.gets.rate)}, after ${f(r2.gets.rate)}) | ${pctOf(a.gets.rate, rawGets)} |

CPU per operation (µs): API create: ${cpu(a.creates)}; raw put: ${cpu(r1.puts)}. API get: ${cpu(a.gets)}; raw get: ${cpu(r1.gets)}.
Raw puts while the server watches (what its watch costs): ${f(a.watched.rate)}/s; ${cpu(a.watched)}.

${N_CREATE} creates then ${N_GET} gets each; API gets are consistent reads (resourceVersion unset), API creates are POSTs over HTTPS.
`);
} finally {
  await etcd.stop();
}
