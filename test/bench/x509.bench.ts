// What reading client certificates costs (issue 14 item 8, the x509 half): creates/s and gets/s at
// concurrency 64 against Bun.serve serving TLS itself ("direct", no client CA) and against the TLS front
// (--client-ca-file, every connection presenting a client certificate), rounds alternating in one run.
// Run:  bun test/bench/x509.bench.ts            (the server from source)
//       npm run build && KITE_BIN=dist/kite bun test/bench/x509.bench.ts   (the built binary)
// Env:  N_CREATE (default 10000), N_GET (default 20000), CONC (default 64), ROUNDS (default 3).
// Prints a Markdown table for docs/PERFORMANCE.md: the median round of each, and the server's CPU per call.
import { cpus } from "node:os";
import { issueClient, makeCA } from "../helpers/certs.ts";
import { startServer } from "../helpers/server.ts";
import { LeanHttps, load, measured, progress } from "./load.ts";

const N_CREATE = Number(process.env.N_CREATE ?? 10_000);
const N_GET = Number(process.env.N_GET ?? 20_000);
const CONC = Number(process.env.CONC ?? 64);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const N_WARM = 5_000;
const VALUE = "x".repeat(1024);

const ca = makeCA("bench-client-ca");
const client = issueClient(ca, "bench-user", { orgs: ["bench"] });

type Result = Awaited<ReturnType<typeof measured>>;

async function round(mode: "direct" | "front", r: number) {
  const s = await startServer(mode === "front" ? [`--client-ca-file=${ca.certFile}`] : []);
  try {
    const ns = `bench-${r}`;
    const ok = await s.call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
    if (ok.status !== 201) throw new Error(`namespace: ${ok.status}`);
    const body = (i: number) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` }, data: { v: VALUE } });
    const http = await LeanHttps.open(s.port, s.ca, CONC, mode === "front" ? client : undefined);
    // Warm-up (not measured): the JIT has compiled the request path of both.
    await load(N_WARM, CONC, (i) => http.request("POST", `/api/v1/namespaces/${ns}/configmaps`, body(N_CREATE + i)));
    await load(N_WARM, CONC, (i) => http.request("GET", `/api/v1/namespaces/${ns}/configmaps/cm-${N_CREATE + i}`));
    progress(`${mode} round ${r}: creates, concurrency ${CONC}`);
    const pids = { kite: s.proc.pid };
    const creates = await measured(N_CREATE, CONC, (i) => http.request("POST", `/api/v1/namespaces/${ns}/configmaps`, body(i)).then((x) => {
      if (x.status !== 201) throw new Error(`create ${i}: ${x.status} ${x.body}`);
    }), pids);
    progress(`${mode} round ${r}: gets, concurrency ${CONC}`);
    const gets = await measured(N_GET, CONC, (i) => http.request("GET", `/api/v1/namespaces/${ns}/configmaps/cm-${i % N_CREATE}`).then((x) => {
      if (x.status !== 200) throw new Error(`get: ${x.status} ${x.body}`);
    }), pids);
    http.close();
    return { creates, gets };
  } finally {
    await s.stop();
  }
}

const results = { direct: [] as { creates: Result; gets: Result }[], front: [] as { creates: Result; gets: Result }[] };
for (let r = 0; r < ROUNDS; r++) {
  results.direct.push(await round("direct", r));
  results.front.push(await round("front", r));
}

const median = (xs: Result[]) => [...xs].sort((a, b) => a.rate - b.rate)[Math.floor(xs.length / 2)];
const row = (what: string, d: Result, f: Result) =>
  `| ${what} | ${Math.round(d.rate)} (${d.cpu.kite} µs) | ${Math.round(f.rate)} (${f.cpu.kite} µs) | ${Math.round((f.rate / d.rate) * 100)} % |`;
const d = { creates: median(results.direct.map((x) => x.creates)), gets: median(results.direct.map((x) => x.gets)) };
const f = { creates: median(results.front.map((x) => x.creates)), gets: median(results.front.map((x) => x.gets)) };
const stolen = [...results.direct, ...results.front].reduce((t, x) => t + x.creates.stolen + x.gets.stolen, 0);
console.log(`\n${cpus().length} cores, ${process.env.KITE_BIN ? "built binary" : "from source"}, SQLite, concurrency ${CONC}, median of ${ROUNDS} rounds (server CPU per call); CPU stolen by the hypervisor during the runs: ${stolen.toFixed(1)} s\n`);
console.log("| per second | Bun.serve TLS (direct) | TLS front + client certificate | front / direct |");
console.log("|---|---|---|---|");
console.log(row("creates", d.creates, f.creates));
console.log(row("gets", d.gets, f.gets));
const each = (xs: Result[]) => xs.map((x) => `${Math.round(x.rate)} (${x.cpu.kite} µs)`).join(", ");
console.log(`\nevery round, per second (server CPU per call): direct creates ${each(results.direct.map((x) => x.creates))}; front creates ${each(results.front.map((x) => x.creates))}; direct gets ${each(results.direct.map((x) => x.gets))}; front gets ${each(results.front.map((x) => x.gets))}`);
process.exit(0);
