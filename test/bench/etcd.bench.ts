// Benchmark of the API server on etcd against raw etcd, measured in the same run (issue 6 item 7).
// Run:  bun test/bench/etcd.bench.ts            (the server from source)
//       npm run build && KITE_BIN=dist/kite bun test/bench/etcd.bench.ts   (the built binary)
// Env:  N_CREATE (default 10000), N_GET (default 20000), CONC (default 64), ROUNDS (default 3).
// Prints a Markdown table for docs/PERFORMANCE.md. "raw" is etcd through the same client the server uses
// (EtcdStore on etcd's JSON gateway), from this process, at the same concurrency and value size.
import { cpus } from "node:os";
import { EtcdStore } from "../../pkg/storage/etcd.ts";
import { etcdBinary, startEtcd } from "../helpers/etcd.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { LeanHttps, load, measured, progress } from "./load.ts";
import { tempDir } from "../helpers/processes.ts";

const N_CREATE = Number(process.env.N_CREATE ?? 10_000);
const N_GET = Number(process.env.N_GET ?? 20_000);
const CONC = Number(process.env.CONC ?? 64);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const N_WARM = 10_000;
const VALUE = "x".repeat(1024);
/**
 * Raw writes store what the API stored (read back from etcd after its first round: managedFields and
 * all), with the name changed, so both move the same bytes.
 */
let template = "";
const stored = (i: number) => template.replace('"name":"cm-0"', `"name":"cm-${i}"`);

const etcd = await startEtcd({ extraArgs: ["--quota-backend-bytes=8589934592"] });
/** One data dir (certificates) for the rounds' servers. */
const dataDir = tempDir("kite-bench-");
const etcdVersion = (Bun.spawnSync([etcdBinary(), "--version"]).stdout.toString().split("\n")[0] ?? "").replace("etcd Version: ", "");

async function raw(tag: string) {
  const st = new EtcdStore({ endpoints: etcd.endpoints });
  progress(`raw etcd puts (${tag}), concurrency ${CONC}`);
  template ||= (await st.get("/registry/configmaps/bench-0/cm-0"))!.value as string;
  const puts = await measured(N_CREATE, CONC, (i) => st.create(`/registry/configmaps/raw-${tag}/cm-${i}`, stored(i)), { etcd: etcd.pid });
  progress(`raw etcd gets (${tag}), concurrency ${CONC}`);
  const gets = await measured(N_GET, CONC, async (i) => {
    const kv = await st.get(`/registry/configmaps/raw-${tag}/cm-${i % N_CREATE}`);
    if (!kv) throw new Error("raw get: missing");
    JSON.parse(kv.value as string);
  }, { etcd: etcd.pid });
  await st.close();
  return { puts, gets };
}

/** The API phases, on a server started for them: raw phases run with no server watching etcd. */
async function api(tag: string) {
  const s = await startServer([`--etcd-servers=${etcd.endpoints[0]}`, "--etcd-compaction-interval=0"], dataDir);
  const ns = `bench-${tag}`;
  expectOk(await s.call("POST", "/api/v1/namespaces", { metadata: { name: ns } }), 201);
  const body = (i: number) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` }, data: { v: VALUE } });
  // The lean client keeps the load generator's share of the two cores small (fetch costs ~2× as much).
  const http = await LeanHttps.open(s.port, s.ca, CONC);
  // Warm-up (not measured), as a server that has been running a while is: the JIT has compiled the
  // request path, and the ConfigMap cache has loaded every earlier round's objects.
  await load(N_WARM, CONC, (i) => http.request("POST", `/api/v1/namespaces/${ns}/configmaps`, body(N_CREATE + i)));
  await load(N_WARM, CONC, (i) => http.request("GET", `/api/v1/namespaces/${ns}/configmaps/cm-${N_CREATE + i}`));
  await Bun.sleep(2000);
  progress(`API creates (${tag}), concurrency ${CONC}`);
  const pids = { etcd: etcd.pid, kite: s.proc.pid };
  const creates = await measured(N_CREATE, CONC, (i) => http.request("POST", `/api/v1/namespaces/${ns}/configmaps`, body(i)).then((r) => {
    if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${r.body}`);
  }), pids);
  progress(`API gets (${tag}), concurrency ${CONC}`);
  const gets = await measured(N_GET, CONC, (i) => http.request("GET", `/api/v1/namespaces/${ns}/configmaps/cm-${i % N_CREATE}`).then((r) => {
    if (r.status !== 200) throw new Error(`get: ${r.status} ${r.body}`);
  }), pids);
  http.close();
  // the last round's server stays up to price its watch
  if (Number(tag) === ROUNDS - 1) return { creates, gets, w: await watched(s), stop: () => s.stop() };
  await s.stop();
  return { creates, gets };
}

/** What the server's watch costs: raw puts from this process while the server watches the key space. */
async function watched(s: TestServer) {
  progress(`raw etcd puts while the server watches, concurrency ${CONC}`);
  const st = new EtcdStore({ endpoints: etcd.endpoints });
  const m = await measured(N_CREATE, CONC, (i) => st.create(`/registry/configmaps/watched/cm-${i}`, stored(i)), { etcd: etcd.pid, kite: s.proc.pid });
  await st.close();
  return m;
}

function expectOk(r: { status: number; body: unknown }, code: number) {
  if (r.status !== code) throw new Error(`expected ${code}, got ${r.status}: ${JSON.stringify(r.body)}`);
}

try {
  // API and raw phases alternate, ROUNDS times, so drift (etcd's growing database, the machine) hits both.
  const rounds: { r: Awaited<ReturnType<typeof raw>>; a: Awaited<ReturnType<typeof api>> }[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const a = await api(String(k));
    rounds.push({ a, r: await raw(String(k)) });
  }
  const last = rounds[ROUNDS - 1].a;
  const w = last.w!;
  await last.stop!();
  const f = (n: number) => Math.round(n).toLocaleString("en-US");
  const pct = (x: number, y: number) => `${Math.round((100 * x) / y)} %`;
  const cpu = (m: { cpu: Record<string, number> }) => Object.entries(m.cpu).map(([k, v]) => `${k} ${v}`).join(", ");
  const stolen = rounds.reduce((t, { r, a }) => t + r.puts.stolen + r.gets.stolen + a.creates.stolen + a.gets.stolen, w.stolen);
  // a phase's rate over all rounds: operations over the summed time
  const overall = (ms: { rate: number }[]) => ms.length / ms.reduce((t, m) => t + 1 / m.rate, 0);
  const rawPuts = overall(rounds.map((x) => x.r.puts)), creates = overall(rounds.map((x) => x.a.creates));
  const rawGets = overall(rounds.map((x) => x.r.gets)), gets = overall(rounds.map((x) => x.a.gets));
  const each = (pick: (x: (typeof rounds)[number]) => [{ rate: number }, { rate: number }]) =>
    rounds.map((x) => { const [a, r] = pick(x); return pct(a.rate, r.rate); }).join(", ");
  const cmd = `${process.env.KITE_BIN ? `KITE_BIN=${process.env.KITE_BIN} ` : ""}N_CREATE=${N_CREATE} N_GET=${N_GET} CONC=${CONC} ROUNDS=${ROUNDS} bun test/bench/etcd.bench.ts`;
  console.log(`
### Kite on etcd vs raw etcd (concurrency ${CONC}, 1 KiB ConfigMaps)

Command: \`${cmd}\`
Machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, etcd ${etcdVersion} (one member, loopback), Bun ${Bun.version}; server ${process.env.KITE_BIN ? "binary" : "from source"}; ${stolen.toFixed(1)} CPU-seconds stolen by the host during the run.

| operation | Kite API on etcd | raw etcd (EtcdStore, same run) | API / raw | API / raw by round |
|---|---:|---:|---:|---|
| creates/s vs puts/s | ${f(creates)} | ${f(rawPuts)} | ${pct(creates, rawPuts)} | ${each((x) => [x.a.creates, x.r.puts])} |
| gets/s | ${f(gets)} | ${f(rawGets)} | ${pct(gets, rawGets)} | ${each((x) => [x.a.gets, x.r.gets])} |

CPU per operation (µs) by round:
${rounds.map(({ r, a }, k) => `- round ${k + 1}: API create ${f(a.creates.rate)}/s: ${cpu(a.creates)}; raw put ${f(r.puts.rate)}/s: ${cpu(r.puts)}; API get ${f(a.gets.rate)}/s: ${cpu(a.gets)}; raw get ${f(r.gets.rate)}/s: ${cpu(r.gets)}; stolen ${(r.puts.stolen + r.gets.stolen + a.creates.stolen + a.gets.stolen).toFixed(1)} s.`).join("\n")}

Raw puts while the server watches (what its watch costs): ${f(w.rate)}/s; ${cpu(w)}.

${ROUNDS} rounds of ${N_CREATE} API creates and ${N_GET} API gets (on a server started for the round and warmed up with ${N_WARM} of each), then ${N_CREATE} raw puts and ${N_GET} raw gets; API gets are consistent reads (resourceVersion unset), API creates are POSTs over HTTPS (kept-alive connections, one per worker).
`);
} finally {
  await etcd.stop();
}
