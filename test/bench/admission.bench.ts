// What the admission chain costs a create: creates/s and server CPU per create of pods and ConfigMaps with
// every default plugin on against a server with all of them off, rounds alternating in the same run.
// Run: bun test/bench/admission.bench.ts   (N_CREATE=2000 ROUNDS=2 by default)
import { DEFAULT_ON } from "../../pkg/admission/plugins.ts";
import { startServer } from "../helpers/server.ts";
import { cpuOf, load, progress } from "./load.ts";

const N = Number(process.env.N_CREATE ?? 2000), ROUNDS = Number(process.env.ROUNDS ?? 2);
const SETUPS: [string, string[]][] = [["every default plugin", []], ["no plugins", [`--disable-admission-plugins=${DEFAULT_ON.join(",")}`]]];

const bodies: Record<string, (name: string) => string> = {
  pods: (name) => JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.21", resources: { requests: { cpu: "100m" } } }] } }),
  configmaps: (name) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { key: "value" } }),
};

console.log("| resource | admission | round | creates/s (concurrency 64) | server CPU per create |\n|---|---|---|---|---|");
const rates: Record<string, number[]> = {};
for (let round = 1; round <= ROUNDS; round++) {
  for (const [label, flags] of SETUPS) {
    progress(`round ${round}: ${label}`);
    const s = await startServer(["--etcd-compaction-interval=0", ...flags]);
    for (const [resource, body] of Object.entries(bodies)) {
      const post = (name: string) => s.req(`/api/v1/namespaces/default/${resource}`, { method: "POST", body: body(name), headers: { "Content-Type": "application/json" } })
        .then(async (r) => { if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${await r.text()}`); });
      await load(300, 16, (i) => post(`warm-${i}`));
      const cpu0 = cpuOf(s.proc.pid);
      const rate = await load(N, 64, (i) => post(`x-${i}`));
      (rates[`${resource} ${label}`] ??= []).push(rate);
      console.log(`| ${resource} | ${label} | ${round} | ${Math.round(rate)} | ${Math.round(((cpuOf(s.proc.pid) - cpu0) * 1e6) / N)} µs |`);
    }
    await s.stop();
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const resource of Object.keys(bodies)) {
  console.log(`${resource}: with every default plugin ${Math.round((100 * mean(rates[`${resource} every default plugin`])) / mean(rates[`${resource} no plugins`]))} % of the creates/s without admission`);
}
process.exit(0);
