// What defaulting every object read from storage costs (issue 13: upstream defaults on every decode).
// Times the registry's decode step — JSON.parse of the stored value, with and without the kind's
// defaulters — for a typical Pod, Deployment and ConfigMap as the server stores them (already defaulted,
// so the defaulters find nothing to fill, as for every object written since defaults exist).
// With BASELINE_ROOT naming a checkout that does not default on read, the same run also compares GET and
// LIST of Pods end to end: a server from this tree and one from the baseline, rounds alternating.
// Run: [BASELINE_ROOT=/path/to/other/checkout] bun test/bench/decode-defaults.bench.ts   (docs/PERFORMANCE.md)
import { join } from "node:path";
import { applyDefaults } from "../../pkg/defaults/index.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";
import { cpuOf, load, progress } from "./load.ts";

const N = Number(process.env.N ?? 200_000);

const container = (name: string) => ({
  name, image: "registry.example.com/app:1.4.2", ports: [{ name: "http", containerPort: 8080 }],
  env: [{ name: "MODE", value: "prod" }, { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
  resources: { requests: { cpu: "250m", memory: "128Mi" }, limits: { cpu: "1", memory: "256Mi" } },
  readinessProbe: { httpGet: { path: "/ready", port: "http" } }, livenessProbe: { tcpSocket: { port: 8080 } },
  volumeMounts: [{ name: "cfg", mountPath: "/etc/app" }],
});
const podSpec = () => ({
  containers: [container("app"), container("sidecar")], volumes: [{ name: "cfg", configMap: { name: "app" } }],
  tolerations: [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }],
});
const meta = (name: string) => ({ name, namespace: "default", uid: "5f0c6a3e-8a1b-4f7e-9d1e-2b1f3c4d5e6f", creationTimestamp: "2026-01-01T00:00:00Z", labels: { app: "web" } });
const SAMPLES: [string, string, string, any][] = [
  ["", "Pod", "Pod", { apiVersion: "v1", kind: "Pod", metadata: meta("web-1"), spec: podSpec(), status: { phase: "Running" } }],
  ["apps", "Deployment", "Deployment", { apiVersion: "apps/v1", kind: "Deployment", metadata: meta("web"), spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: podSpec() } } }],
  ["", "ConfigMap", "ConfigMap (no defaulter)", { apiVersion: "v1", kind: "ConfigMap", metadata: meta("app"), data: { "app.yaml": "x".repeat(1024) } }],
];

function time(text: string, fn: (o: any) => void): number {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) fn(JSON.parse(text));
    best = Math.min(best, ((performance.now() - t0) * 1000) / N);
  }
  return best;
}

console.log("| object | decode (µs) | decode + defaults (µs) | defaults add |");
console.log("|---|---|---|---|");
for (const [group, kind, label, obj] of SAMPLES) {
  applyDefaults(group, kind, obj); // stored objects were defaulted when written
  const text = JSON.stringify(obj);
  const plain = time(text, () => {});
  const defaulted = time(text, (o) => applyDefaults(group, kind, o));
  console.log(`| ${label}, ${text.length} B | ${plain.toFixed(2)} | ${defaulted.toFixed(2)} | ${(defaulted - plain).toFixed(2)} µs |`);
}

const BASELINE = process.env.BASELINE_ROOT;
if (BASELINE) {
  const N_PODS = 500, N_GET = Number(process.env.N_GET ?? 10_000), ROUNDS = 3, CONC = 32;
  const servers: [string, TestServer][] = [
    ["defaults on read", await startServer([], undefined, KITE)],
    ["baseline", await startServer([], undefined, [process.execPath, join(BASELINE, "cmd/main.ts")])],
  ];
  const body = (i: number) => ({ ...SAMPLES[0][3], metadata: { name: `web-${i}` }, status: undefined });
  for (const [label, s] of servers) {
    progress(`${label}: creating ${N_PODS} pods`);
    await load(N_PODS, 16, (i) => s.call("POST", "/api/v1/namespaces/default/pods", body(i)));
  }
  const best: Record<string, { get: number; getCpu: number; list: number }> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const [label, s] of servers) {
      progress(`${label}: round ${r + 1}`);
      const pid = s.proc.pid;
      let cpu = cpuOf(pid);
      const get = await load(N_GET, CONC, (i) => s.req(`/api/v1/namespaces/default/pods/web-${i % N_PODS}`).then((x) => x.arrayBuffer()));
      const getCpu = ((cpuOf(pid) - cpu) * 1e6) / N_GET;
      cpu = cpuOf(pid);
      const list = await load(100, 4, () => s.req("/api/v1/namespaces/default/pods").then((x) => x.arrayBuffer()));
      const b = (best[label] ??= { get: 0, getCpu: Infinity, list: 0 });
      b.get = Math.max(b.get, get); b.getCpu = Math.min(b.getCpu, getCpu); b.list = Math.max(b.list, list);
    }
  }
  console.log(`\n| server (${N_PODS} pods) | GET/s (best of ${ROUNDS}) | server CPU per GET (µs) | LIST of all/s |`);
  console.log("|---|---|---|---|");
  for (const [label] of servers) console.log(`| ${label} | ${best[label].get.toFixed(0)} | ${best[label].getCpu.toFixed(0)} | ${best[label].list.toFixed(1)} |`);
  for (const [, s] of servers) await s.stop();
}
