// The cost of audit and of encryption at rest (issue 20 item 8): creates/s at concurrency 64 against
// servers started in the same run and measured alternately —
//   audit:      no --audit-policy-file  vs  a Metadata-level policy logging every request to a file
//   encryption: Secrets under `identity`  vs  under `aescbc`
// Run: N_OPS=4000 ROUNDS=3 bun test/bench/audit.bench.ts   (prints a Markdown table for docs/PERFORMANCE.md)
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { startServer } from "../helpers/server.ts";
import { LeanHttps, measured, progress } from "./load.ts";

const N = Number(process.env.N_OPS ?? 4000);
const CONC = 64;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const VALUE = "x".repeat(1024);
const dir = tempDir("kite-bench-audit-");

const file = (name: string, text: string) => { writeFileSync(join(dir, name), text); return join(dir, name); };
const policy = file("policy.yaml", "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n");
const encryption = (provider: string) => file(`${provider}.yaml`, `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - ${provider === "identity" ? "identity: {}" : `aescbc: {keys: [{name: k1, secret: "${Buffer.alloc(32, 7).toString("base64")}"}]}`}
`);

const variants = {
  "audit off": { args: [], path: "configmaps", body: (name: string) => ({ metadata: { name }, data: { v: VALUE } }) },
  "audit Metadata → file": { args: [`--audit-policy-file=${policy}`, `--audit-log-path=${join(dir, "audit.log")}`], path: "configmaps", body: (name: string) => ({ metadata: { name }, data: { v: VALUE } }) },
  "Secrets, identity": { args: [`--encryption-provider-config=${encryption("identity")}`], path: "secrets", body: (name: string) => ({ metadata: { name }, stringData: { v: VALUE } }) },
  "Secrets, aescbc": { args: [`--encryption-provider-config=${encryption("aescbc")}`], path: "secrets", body: (name: string) => ({ metadata: { name }, stringData: { v: VALUE } }) },
};
type Name = keyof typeof variants;

const started = [];
for (const [name, v] of Object.entries(variants)) {
  progress(`starting: ${name}`);
  const s = await startServer(["--etcd-compaction-interval=0", ...v.args]);
  await s.call("POST", "/api/v1/namespaces", { metadata: { name: "bench" } });
  started.push({ name: name as Name, s });
}
const servers = started;

const rates: Record<string, number[]> = {};
const cpu: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const { name, s } of servers) {
    progress(`round ${round + 1}: ${name}`);
    const v = variants[name];
    // fresh connections each time: kept ones could pass the server's idle timeout while the others run
    const http = await LeanHttps.open(s.port, s.ca, CONC);
    const m = await measured(N, CONC, async (i) => {
      const r = await http.request("POST", `/api/v1/namespaces/bench/${v.path}`, JSON.stringify(v.body(`o-${round}-${i}`)));
      if (r.status !== 201) throw new Error(`${name}: ${r.status} ${r.body}`);
    }, { server: s.proc.pid });
    http.close();
    (rates[name] ??= []).push(m.rate);
    (cpu[name] ??= []).push(m.cpu.server);
  }
}
await Promise.all(servers.map(({ s }) => s.stop()));

const best = (n: string) => Math.max(...rates[n]!);
const least = (n: string) => Math.min(...cpu[n]!);
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
const row = (what: string, off: Name, on: Name) => {
  const ratio = Math.round((100 * best(on)) / best(off));
  return `| ${what} | ${fmt(best(off))} | ${fmt(best(on))} | ${ratio} % | ${least(off)} / ${least(on)} | ≥ 85 % ${ratio >= 85 ? "✔" : "✘"} |`;
};
console.log(`
| creates/s (concurrency ${CONC}, best of ${ROUNDS} alternating rounds, ${N} per round) | without | with | with / without | server CPU per create, µs (least) | target |
|---|---|---|---|---|---|
${row("audit at Metadata to a file (1 KB ConfigMaps)", "audit off", "audit Metadata → file")}
${row("encryption: aescbc against identity (1 KB Secrets)", "Secrets, identity", "Secrets, aescbc")}
`);
process.exit(0);
