// What reading client certificates costs (issue 14 item 8, the x509 half): creates/s and gets/s at
// concurrency 64 against Bun.serve serving TLS itself ("direct", no client CA, AlwaysAllow), against the
// TLS front (--client-ca-file, every connection presenting a client certificate, AlwaysAllow), and the
// front with --authorization-mode=RBAC (the certificate's user bound to a ClusterRole), rounds alternating.
// Run:  bun test/bench/x509.bench.ts            (the server from source)
//       npm run build && KITE_BIN=dist/kite bun test/bench/x509.bench.ts   (the built binary)
// Env:  N_CREATE (default 10000), N_GET (default 20000), CONC (default 64), ROUNDS (default 3).
// Prints a Markdown table for docs/PERFORMANCE.md: the median round of each, and the server's CPU per call.
import { cpus } from "node:os";
import { issueClient, makeCA } from "../helpers/certs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { LeanHttps, load, measured, progress } from "./load.ts";

const N_CREATE = Number(process.env.N_CREATE ?? 10_000);
const N_GET = Number(process.env.N_GET ?? 20_000);
const CONC = Number(process.env.CONC ?? 64);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const N_WARM = 5_000;
const VALUE = "x".repeat(1024);

const ca = makeCA("bench-client-ca");
const client = issueClient(ca, "bench-user", { orgs: ["bench"] });
const admin = issueClient(ca, "bench-admin", { orgs: ["system:masters"] });
const MODES = ["direct", "front", "front-rbac"] as const;
type Mode = (typeof MODES)[number];
const FLAGS: Record<Mode, string[]> = {
  direct: [],
  front: [`--client-ca-file=${ca.certFile}`],
  "front-rbac": [`--client-ca-file=${ca.certFile}`, "--authorization-mode=RBAC"],
};

/** A setup request as the system:masters user. */
async function asAdmin(s: TestServer, method: string, path: string, body: unknown) {
  const r = await fetch(`${s.url}${path}`, { method, body: JSON.stringify(body), headers: { "Content-Type": "application/json" }, tls: { ca: s.ca, cert: admin.cert, key: admin.key } } as RequestInit);
  if (r.status !== 201) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
}

/** The bench user may create and get ConfigMaps, through one ClusterRole and its binding. */
async function grantConfigMaps(s: TestServer) {
  await asAdmin(s, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { metadata: { name: "bench" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "create"] }] });
  await asAdmin(s, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", { metadata: { name: "bench" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "bench" }, subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "bench-user" }] });
}

type Result = Awaited<ReturnType<typeof measured>>;

async function round(mode: Mode, r: number) {
  const s = await startServer(FLAGS[mode]);
  try {
    const ns = `bench-${r}`;
    if (mode === "direct") {
      const ok = await s.call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
      if (ok.status !== 201) throw new Error(`namespace: ${ok.status}`);
    } else await asAdmin(s, "POST", "/api/v1/namespaces", { metadata: { name: ns } });
    if (mode === "front-rbac") await grantConfigMaps(s);
    const body = (i: number) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` }, data: { v: VALUE } });
    const http = await LeanHttps.open(s.port, s.ca, CONC, mode === "direct" ? undefined : client);
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

const results = Object.fromEntries(MODES.map((m) => [m, [] as { creates: Result; gets: Result }[]])) as Record<Mode, { creates: Result; gets: Result }[]>;
for (let r = 0; r < ROUNDS; r++) for (const m of MODES) results[m].push(await round(m, r));

const median = (xs: Result[]) => [...xs].sort((a, b) => a.rate - b.rate)[Math.floor(xs.length / 2)];
const cell = (x: Result) => `${Math.round(x.rate)} (${x.cpu.kite} µs)`;
const pct = (x: Result, d: Result) => `${Math.round((x.rate / d.rate) * 100)} %`;
const m = Object.fromEntries(MODES.map((k) => [k, { creates: median(results[k].map((x) => x.creates)), gets: median(results[k].map((x) => x.gets)) }])) as Record<Mode, { creates: Result; gets: Result }>;
const stolen = MODES.flatMap((k) => results[k]).reduce((t, x) => t + x.creates.stolen + x.gets.stolen, 0);
console.log(`\n${cpus().length} cores, ${process.env.KITE_BIN ? "built binary" : "from source"}, SQLite, concurrency ${CONC}, median of ${ROUNDS} rounds (server CPU per call); CPU stolen by the hypervisor during the runs: ${stolen.toFixed(1)} s\n`);
console.log("| per second | direct (AlwaysAllow) | front + client certificate | front + certificate + RBAC | front / direct | front+RBAC / direct |");
console.log("|---|---|---|---|---|---|");
for (const op of ["creates", "gets"] as const) {
  console.log(`| ${op} | ${cell(m.direct[op])} | ${cell(m.front[op])} | ${cell(m["front-rbac"][op])} | ${pct(m.front[op], m.direct[op])} | ${pct(m["front-rbac"][op], m.direct[op])} |`);
}
for (const k of MODES) console.log(`${k}: creates ${results[k].map((x) => cell(x.creates)).join(", ")}; gets ${results[k].map((x) => cell(x.gets)).join(", ")}`);
process.exit(0);
