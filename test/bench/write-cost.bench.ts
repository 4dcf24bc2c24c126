// Server CPU per write of the three writes a scheduled pod costs the API server: its create, its binding
// (pods/NAME/binding) and the scheduler's Scheduled event (events.k8s.io/v1), each alone at concurrency 32.
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/write-cost.bench.ts   (N overrides 4,000 writes)
import { startServer, TEST_TOKEN } from "../helpers/server.ts";
import { cpuOf, LeanHttps, load } from "./load.ts";

const N = Number(process.env.N ?? 4000);
const AUTH = `Authorization: Bearer ${TEST_TOKEN}\r\n`;
const pod = (name: string) => JSON.stringify({
  apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "x" } },
  spec: { containers: [{ name: "c", image: "nginx:1.21", resources: { requests: { cpu: "100m", memory: "64Mi" } } }] },
});
const binding = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name }, target: { kind: "Node", name: "n1" } });
const event = (i: number) => JSON.stringify({
  apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name: `e-${i}`, namespace: "default" }, eventTime: "2026-11-24T05:00:00.000000Z",
  reportingController: "default-scheduler", reportingInstance: "default-scheduler-bench", action: "Binding", reason: "Scheduled",
  regarding: { kind: "Pod", namespace: "default", name: `p-${i}`, apiVersion: "v1" }, note: `Successfully assigned default/p-${i} to n1`, type: "Normal",
});

const s = await startServer();
const http = await LeanHttps.open(s.port, s.ca, 32);
const post = async (path: string, body: string) => {
  const r = await http.request("POST", path, body, AUTH);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.body}`);
};
const measure = async (label: string, op: (i: number) => Promise<void>) => {
  const c0 = cpuOf(s.proc.pid);
  const rate = await load(N, 32, op);
  console.log(`| ${label} | ${Math.round(rate)} | ${Math.round(((cpuOf(s.proc.pid) - c0) * 1e6) / N)} µs |`);
};
// warm-up: the JIT has seen every path before measuring
await load(500, 16, (i) => post("/api/v1/namespaces/default/pods", pod(`warm-${i}`)));
await load(500, 16, (i) => post(`/api/v1/namespaces/default/pods/warm-${i}/binding`, binding(`warm-${i}`)));
console.log("| write | per second | server CPU per write |\n|---|---|---|");
await measure("pod create", (i) => post("/api/v1/namespaces/default/pods", pod(`p-${i}`)));
await measure("binding", (i) => post(`/api/v1/namespaces/default/pods/p-${i}/binding`, binding(`p-${i}`)));
await measure("event create", (i) => post("/apis/events.k8s.io/v1/namespaces/default/events", event(i)));
http.close();
await s.stop();
process.exit(0);
