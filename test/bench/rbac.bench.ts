// Benchmark of authorization cost (issue 14 item 8): creates/s and gets/s at concurrency 64 with
// --authorization-mode=AlwaysAllow against RBAC, in the same run, alternating. Under RBAC the anonymous
// caller is bound to `edit` in the benchmark's namespace, among 100 other roles and 150 other bindings
// (the bootstrap policy's ~90 objects besides).
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/rbac.bench.ts   (prints a Markdown table)
import { startServer, type TestServer } from "../helpers/server.ts";
import { ANON, RBAC, bindingBody, clusterRole, ns, rbacServer, roleRef, rule, subject } from "../api/rbac-fixtures.ts";
import { LeanHttps, measured, progress, stolenCpu } from "./load.ts";

const N = Number(process.env.N_OPS ?? 20000);
const CONC = 64;
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const VALUE = "x".repeat(1024);

const seed: [string, object][] = [ns("bench")];
for (let i = 0; i < 100; i++) {
  seed.push([`${RBAC}/clusterroles`, clusterRole(`bench:role-${i}`, [rule(["get", "list"], [`g${i}.example.com`], ["widgets", "gadgets"]), rule(["create"], [""], [`res-${i}`])])]);
  seed.push([`${RBAC}/namespaces/bench/rolebindings`, bindingBody(`user-${i}`, roleRef("ClusterRole", `bench:role-${i}`), [subject("User", `user-${i}`)])]);
  if (i < 50) seed.push([`${RBAC}/clusterrolebindings`, bindingBody(`bench:group-${i}`, roleRef("ClusterRole", `bench:role-${i}`), [subject("Group", `group-${i}`)])]);
}
seed.push([`${RBAC}/namespaces/bench/rolebindings`, bindingBody("anonymous-edit", roleRef("ClusterRole", "edit"), [subject("User", ANON)])]);

async function prepared(s: TestServer, withNamespace: boolean) {
  if (withNamespace) await s.call("POST", "/api/v1/namespaces", { metadata: { name: "bench" } });
  return LeanHttps.open(s.port, s.ca, CONC);
}

progress("starting AlwaysAllow and RBAC servers");
const allow = await startServer(["--etcd-compaction-interval=0"]);
const rbac = await rbacServer(seed, ["--etcd-compaction-interval=0"]);
const servers = { AlwaysAllow: { http: await prepared(allow, true), pid: allow.proc.pid }, RBAC: { http: await prepared(rbac, false), pid: rbac.proc.pid } };
// the binding is in the index once the server is ready; make sure before measuring
const probe = await servers.RBAC.http.request("GET", "/api/v1/namespaces/bench/configmaps");
if (probe.status !== 200) throw new Error(`RBAC server refuses the anonymous list: ${probe.status} ${probe.body}`);

type Figures = { creates: number[]; gets: number[]; createCpu: number[]; getCpu: number[] };
const empty = (): Figures => ({ creates: [], gets: [], createCpu: [], getCpu: [] });
const results: Record<string, Figures> = { AlwaysAllow: empty(), RBAC: empty() };
const stolen0 = stolenCpu();
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of ["AlwaysAllow", "RBAC"] as const) {
    const { http, pid } = servers[mode];
    const base = round * N;
    progress(`round ${round + 1}: ${mode} creates`);
    const c = await measured(N, CONC, async (i) => {
      const r = await http.request("POST", "/api/v1/namespaces/bench/configmaps", JSON.stringify({ metadata: { name: `cm-${base + i}` }, data: { v: VALUE } }));
      if (r.status !== 201) throw new Error(`${mode} create: ${r.status} ${r.body}`);
    }, { server: pid });
    progress(`round ${round + 1}: ${mode} gets`);
    const g = await measured(N * 2, CONC, async (i) => {
      const r = await http.request("GET", `/api/v1/namespaces/bench/configmaps/cm-${base + (i % N)}`);
      if (r.status !== 200) throw new Error(`${mode} get: ${r.status}`);
    }, { server: pid });
    results[mode].creates.push(c.rate);
    results[mode].createCpu.push(c.cpu.server);
    results[mode].gets.push(g.rate);
    results[mode].getCpu.push(g.cpu.server);
  }
}
const stolen = stolenCpu() - stolen0;
await allow.stop();
await rbac.stop();

const best = (xs: number[]) => Math.max(...xs);
const least = (xs: number[]) => Math.min(...xs);
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
const row = (what: string, key: "creates" | "gets") => {
  const a = best(results.AlwaysAllow[key]), r = best(results.RBAC[key]);
  return `| ${what} | ${fmt(a)} | ${fmt(r)} | ${Math.round((100 * r) / a)} % | ≥ 90 % ${r >= 0.9 * a ? "✔" : "✘"} |`;
};
const cpuRow = (what: string, key: "createCpu" | "getCpu") => {
  const a = least(results.AlwaysAllow[key]), r = least(results.RBAC[key]);
  return `| ${what} | ${a} | ${r} | ${Math.round((100 * a) / r)} % | |`;
};
console.log(`
| measure (concurrency ${CONC}, best of ${ROUNDS} alternating rounds) | AlwaysAllow | RBAC | RBAC / AlwaysAllow | target |
|---|---|---|---|---|
${row("creates/s (1 KB configmaps)", "creates")}
${row("gets/s", "gets")}
${cpuRow("server CPU per create (µs, least)", "createCpu")}
${cpuRow("server CPU per get (µs, least)", "getCpu")}

all rounds: AlwaysAllow creates ${results.AlwaysAllow.creates.map(fmt).join(", ")}; RBAC creates ${results.RBAC.creates.map(fmt).join(", ")};
AlwaysAllow gets ${results.AlwaysAllow.gets.map(fmt).join(", ")}; RBAC gets ${results.RBAC.gets.map(fmt).join(", ")}; CPU stolen by the host: ${stolen.toFixed(1)} s
`);
process.exit(0);
