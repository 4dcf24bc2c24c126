// Benchmark of authentication + authorization (issue 14 item 8): creates/s and gets/s at concurrency 64,
// the same run, rounds alternating between four servers on the embedded store:
//   allow        --authorization-mode=AlwaysAllow, anonymous callers (the reference)
//   token-rbac   RBAC, every request with a bearer token of --token-auth-file
//   cert-allow   AlwaysAllow behind the TLS front (--client-ca-file), every connection with a client certificate
//   cert-rbac    RBAC behind the TLS front, client certificate
// Under RBAC the caller is bound to `edit` in the benchmark's namespace among 100 other ClusterRoles,
// 100 other RoleBindings there and 50 other ClusterRoleBindings (besides the bootstrap policy).
// Run:  bun test/bench/auth.bench.ts                         (the server from source)
//       npm run build && KITE_BIN=dist/kite bun test/bench/auth.bench.ts
// Env:  N_OPS (default 8000 creates, twice as many gets), ROUNDS (default 3), MODES (a comma-separated
//       subset of the four, allow first: the reference).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadavg } from "node:os";
import { ANON, RBAC, bindingBody, clusterRole, ns, roleRef, rule, subject, writeAll } from "../api/rbac-fixtures.ts";
import { issueClient, makeCA } from "../helpers/certs.ts";
import { tempDir } from "../helpers/processes.ts";
import { TEST_TOKEN, startServer, type TestServer } from "../helpers/server.ts";
import { LeanHttps, measured, progress, stolenCpu } from "./load.ts";

const N = Number(process.env.N_OPS ?? 8000);
const CONC = 64;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const VALUE = "x".repeat(1024);
const NS = "bench";

const ca = makeCA("bench-client-ca");
const certUser = issueClient(ca, "bench-cert-user", { orgs: ["bench"] });
const tokens = join(tempDir("kite-bench-tokens-"), "tokens.csv");
writeFileSync(tokens, `${TEST_TOKEN},kite-test,kite-test,system:masters\nbench-token,bench-token-user,u-1,bench\n`);

const seed: [string, object][] = [ns(NS)];
for (let i = 0; i < 100; i++) {
  seed.push([`${RBAC}/clusterroles`, clusterRole(`bench:role-${i}`, [rule(["get", "list"], [`g${i}.example.com`], ["widgets", "gadgets"]), rule(["create"], [""], [`res-${i}`])])]);
  seed.push([`${RBAC}/namespaces/${NS}/rolebindings`, bindingBody(`user-${i}`, roleRef("ClusterRole", `bench:role-${i}`), [subject("User", `user-${i}`)])]);
  if (i < 50) seed.push([`${RBAC}/clusterrolebindings`, bindingBody(`bench:group-${i}`, roleRef("ClusterRole", `bench:role-${i}`), [subject("Group", `group-${i}`)])]);
}
seed.push([`${RBAC}/namespaces/${NS}/rolebindings`, bindingBody("bench-edit", roleRef("ClusterRole", "edit"), [subject("User", "bench-token-user"), subject("User", "bench-cert-user"), subject("User", ANON)])]);

const MODES = {
  allow: { flags: [], client: undefined, header: "" },
  "token-rbac": { flags: ["--authorization-mode=RBAC"], client: undefined, header: "Authorization: Bearer bench-token\r\n" },
  "cert-allow": { flags: [`--client-ca-file=${ca.certFile}`], client: certUser, header: "" },
  "cert-rbac": { flags: [`--client-ca-file=${ca.certFile}`, "--authorization-mode=RBAC"], client: certUser, header: "" },
} as const;
type Mode = keyof typeof MODES;
const ONLY = process.env.MODES?.split(",");

/** Every server is seeded alike (the RBAC objects under AlwaysAllow servers too: the same store size). */
async function server(mode: Mode): Promise<TestServer> {
  const m = MODES[mode];
  const s = await startServer([`--token-auth-file=${tokens}`, "--etcd-compaction-interval=0", ...m.flags]);
  const admin = { ...s, call: (method: string, path: string, body?: unknown) => s.call(method, path, body, { Authorization: `Bearer ${TEST_TOKEN}` }) } as TestServer;
  await writeAll(admin, seed);
  return s;
}

/**
 * Connections for a round, opened just before it (the server closes connections idle for 10 s), once the
 * caller is let through: a binding reaches the authorizer's index a moment after its create.
 */
async function connect(mode: Mode, s: TestServer): Promise<LeanHttps> {
  const m = MODES[mode];
  const http = await LeanHttps.open(s.port, s.ca, CONC, m.client ? { cert: m.client.cert, key: m.client.key } : undefined);
  for (const deadline = Date.now() + 10_000; ;) {
    const r = await http.request("GET", `/api/v1/namespaces/${NS}/configmaps?limit=1`, "", m.header);
    if (r.status === 200) return http;
    if (Date.now() > deadline) throw new Error(`${mode}: the caller is refused: ${r.status} ${r.body}`);
    await Bun.sleep(50);
  }
}

const modes = (Object.keys(MODES) as Mode[]).filter((m) => !ONLY || ONLY.includes(m));
progress(`starting ${modes.length} servers`);
const servers = {} as Record<Mode, TestServer>;
for (const mode of modes) servers[mode] = await server(mode);

type Figures = { creates: number[]; gets: number[]; createCpu: number[]; getCpu: number[] };
const results = Object.fromEntries(modes.map((m) => [m, { creates: [], gets: [], createCpu: [], getCpu: [] }])) as unknown as Record<Mode, Figures>;
const loads: number[] = [];
const stolen0 = stolenCpu();
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of modes) {
    const s = servers[mode];
    const http = await connect(mode, s);
    const header = MODES[mode].header;
    const base = round * N;
    loads.push(loadavg()[0]);
    progress(`round ${round + 1}: ${mode} creates (load average ${loadavg()[0].toFixed(1)})`);
    const c = await measured(N, CONC, async (i) => {
      const r = await http.request("POST", `/api/v1/namespaces/${NS}/configmaps`, JSON.stringify({ metadata: { name: `cm-${base + i}` }, data: { v: VALUE } }), header);
      if (r.status !== 201) throw new Error(`${mode} create: ${r.status} ${r.body}`);
    }, { server: s.proc.pid });
    progress(`round ${round + 1}: ${mode} gets`);
    const g = await measured(N * 2, CONC, async (i) => {
      const r = await http.request("GET", `/api/v1/namespaces/${NS}/configmaps/cm-${base + (i % N)}`, "", header);
      if (r.status !== 200) throw new Error(`${mode} get: ${r.status}`);
    }, { server: s.proc.pid });
    http.close();
    results[mode].creates.push(c.rate);
    results[mode].createCpu.push(c.cpu.server);
    results[mode].gets.push(g.rate);
    results[mode].getCpu.push(g.cpu.server);
  }
}
const stolen = stolenCpu() - stolen0;
for (const s of Object.values(servers)) await s.stop();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
const rate = (key: "creates" | "gets") => `| ${key}/s, median | ${modes.map((m) => fmt(median(results[m][key]))).join(" | ")} | ${modes.slice(1).map((m) => `${Math.round((100 * median(results[m][key])) / median(results.allow[key]))} %`).join(" / ")} |`;
const cpu = (key: "createCpu" | "getCpu", what: string) => `| server CPU per ${what} (µs, median) | ${modes.map((m) => fmt(median(results[m][key]))).join(" | ")} | ${modes.slice(1).map((m) => `${Math.round((100 * median(results.allow[key])) / median(results[m][key]))} %`).join(" / ")} |`;
console.log(`
${process.env.KITE_BIN ? "built binary" : "from source"}, concurrency ${CONC}, ${N} creates and ${2 * N} gets per round, median of ${ROUNDS} alternating rounds; load average at the rounds' starts ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; CPU stolen by the host ${stolen.toFixed(1)} s

| measure | ${modes.join(" | ")} | ${modes.slice(1).join(" / ")} vs allow |
|${"---|".repeat(modes.length + 2)}
${rate("creates")}
${rate("gets")}
${cpu("createCpu", "create")}
${cpu("getCpu", "get")}

all rounds: ${modes.map((m) => `${m} creates ${results[m].creates.map(fmt).join(", ")}, gets ${results[m].gets.map(fmt).join(", ")}`).join("; ")}
`);
process.exit(0);
