// What validating a workload costs (issue 13): the validator's own time per typical Deployment, in
// process, and POST creates/s of that Deployment against one live `kite apiserver` from source whose
// per-kind validation is switched off and on between rounds (./validation-switch.ts): the same process,
// store and run, rounds alternating (on, off, off, on, ...), so only validation differs. Both halves are
// warmed up first (WARMUP creates with validation on, then N_CREATE off; not counted): JavaScriptCore
// compiles the validators' code on its own threads only while they run, over the first ~10,000 validated
// creates, so without it the "on" rounds pay that compilation and the "off" ones do not.
// Run: bun test/bench/validation.bench.ts  (N_VALIDATE, N_CREATE, ROUNDS, WARMUP to change the counts)
import { validateKind } from "../../pkg/validation/index.ts";
import { applyDefaults } from "../../pkg/defaults/index.ts";
import { loadavg } from "node:os";
import { join } from "node:path";
import { type TestServer, startServer } from "../helpers/server.ts";
import { cpuOf, load, mainThreadCpuOf, progress } from "./load.ts";

const N_VALIDATE = Number(process.env.N_VALIDATE ?? 10000);
const N_CREATE = Number(process.env.N_CREATE ?? 1500);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const WARMUP = Number(process.env.WARMUP ?? 15000);

/** A Deployment as real manifests write one: two containers, ports, env, probes, resources, volumes. */
const deployment = (name: string) => ({
  apiVersion: "apps/v1", kind: "Deployment",
  metadata: { name, namespace: "bench", labels: { app: "web", tier: "frontend" } },
  spec: {
    replicas: 3, selector: { matchLabels: { app: "web" } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
    template: {
      metadata: { labels: { app: "web", tier: "frontend" }, annotations: { "prometheus.io/scrape": "true" } },
      spec: {
        volumes: [{ name: "config", configMap: { name: "web-config" } }, { name: "cache", emptyDir: {} }],
        containers: [{
          name: "web", image: "nginx:1.21", ports: [{ name: "http", containerPort: 80, protocol: "TCP" }],
          env: [{ name: "MODE", value: "production" }, { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
          resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
          livenessProbe: { httpGet: { path: "/healthz", port: "http" }, initialDelaySeconds: 5, periodSeconds: 10 },
          readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5 },
          volumeMounts: [{ name: "config", mountPath: "/etc/nginx/conf.d" }, { name: "cache", mountPath: "/var/cache/nginx" }],
        }, {
          name: "sidecar", image: "busybox:1.36", command: ["sh", "-c", "sleep infinity"],
          resources: { requests: { cpu: "10m", memory: "16Mi" } },
        }],
      },
    },
  },
});

/** µs per call over rounds of N_VALIDATE calls: the median and the best round (the machine is shared). */
function inProcess() {
  const o = deployment("web");
  applyDefaults("apps", "Deployment", o); // the server validates the defaulted object

  for (let i = 0; i < 5000; i++) validateKind("apps", "Deployment", o); // warm-up
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < N_VALIDATE; i++) {
      const causes = validateKind("apps", "Deployment", o);
      if (causes.length) throw new Error(`the bench Deployment is invalid: ${JSON.stringify(causes)}`);
    }
    rounds.push(((performance.now() - t0) * 1000) / N_VALIDATE);
  }
  rounds.sort((a, b) => a - b);
  return { median: rounds[2], best: rounds[0] };
}

const SWITCH = [process.execPath, join(import.meta.dir, "validation-switch.ts")];

/** Turns the server's per-kind validation on or off; waits until a Deployment with replicas -1 shows it. */
async function setValidation(s: TestServer, on: boolean) {
  s.proc.kill(on ? "SIGUSR2" : "SIGUSR1");
  const bad = { ...deployment("probe"), metadata: { name: "probe", namespace: "bench" } };
  bad.spec = { ...bad.spec, replicas: -1 };
  for (const deadline = Date.now() + 10_000; ;) {
    const r = await s.call("POST", "/apis/apps/v1/namespaces/bench/deployments?dryRun=All", bad);
    if (r.status === (on ? 422 : 201)) return;
    if (Date.now() > deadline) throw new Error(`validation ${on ? "on" : "off"}: a Deployment with replicas -1 got ${r.status}`);
    await Bun.sleep(10);
  }
}

const post = (s: TestServer, i: number) => s.req("/apis/apps/v1/namespaces/bench/deployments", { method: "POST", json: JSON.stringify(deployment(`web-${i}`)) }).then(async (r) => {
  if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${await r.text()}`);
});

/** Creates at concurrency 64 and the server's CPU per create (µs): all of it, and its main (JavaScript) thread's. */
async function measured(s: TestServer, n: number, from: number) {
  const cpu0 = cpuOf(s.proc.pid), js0 = mainThreadCpuOf(s.proc.pid);
  const rate = await load(n, 64, (i) => post(s, from + i));
  return { rate, cpuUs: ((cpuOf(s.proc.pid) - cpu0) * 1e6) / n, jsUs: ((mainThreadCpuOf(s.proc.pid) - js0) * 1e6) / n };
}

/** Creates/s at concurrency 1 and 64, and the server's CPU per create at 64, of one round. */
async function round(s: TestServer, from: number) {
  const c1 = await load(Math.min(1000, N_CREATE), 1, (i) => post(s, from + 1_000_000 + i));
  const { rate: c64, cpuUs, jsUs } = await measured(s, N_CREATE, from);
  return { c1, c64, cpuUs, jsUs };
}

type Figures = Awaited<ReturnType<typeof round>>;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const summary = (rs: Figures[]) => ({
  c1: median(rs.map((r) => r.c1)), c64: median(rs.map((r) => r.c64)), cpuUs: median(rs.map((r) => r.cpuUs)), jsUs: median(rs.map((r) => r.jsUs)),
});

progress(`validator, ${N_VALIDATE} calls`);
const us = inProcess();
const s = await startServer(["--etcd-compaction-interval=0"], undefined, SWITCH);
await s.call("POST", "/api/v1/namespaces", { metadata: { name: "bench" } });
// the server's threads other than its main one (the JIT compiler's, the GC's) settle as the warm-up goes on
let warm = 900_000_000;
for (const [validating, total] of [[true, WARMUP], [false, N_CREATE]] as const) {
  await setValidation(s, validating);
  for (let done = 0; done < total; done += N_CREATE) {
    const n = Math.min(N_CREATE, total - done), w = await measured(s, n, warm);
    warm += n;
    progress(`warm-up: ${n} creates, validation ${validating ? "on" : "off"}: server CPU ${Math.round(w.cpuUs)} µs per create, ${Math.round(w.cpuUs - w.jsUs)} µs of it off the main thread`);
  }
}
const on: Figures[] = [], off: Figures[] = [], loads: number[] = [];
for (let r = 0, n = 0; r < ROUNDS; r++) {
  // on, off, then off, on: drift over the run (a growing store, other work) falls on both alike
  for (const validating of r % 2 ? [false, true] : [true, false]) {
    await setValidation(s, validating);
    loads.push(loadavg()[0]!);
    progress(`round ${r + 1}/${ROUNDS}: Deployment creates, validation ${validating ? "on" : "off"} (load average ${loadavg()[0]!.toFixed(1)})`);
    (validating ? on : off).push(await round(s, n++ * 10_000_000));
  }
}
await s.stop();
const a = summary(on), b = summary(off);
const f = (n: number) => Math.round(n).toLocaleString("en-US");
const vs = (x: number, y: number) => `${f(x)} | ${f(y)} | ${((x / y) * 100).toFixed(1)} %`;
console.log(`
| measure (medians of ${ROUNDS} rounds each; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}) | validation on | off | on / off |
|---|---|---|---|
| Deployment creates/s, concurrency 1 | ${vs(a.c1, b.c1)} |
| Deployment creates/s, concurrency 64 | ${vs(a.c64, b.c64)} |
| server CPU per create at concurrency 64 (µs) | ${vs(a.cpuUs, b.cpuUs)} |
| of which the main (JavaScript) thread's (µs) | ${vs(a.jsUs, b.jsUs)} |

validation of one typical Deployment, in process: ${us.median.toFixed(1)} µs (median of 5 rounds of ${f(N_VALIDATE)}; best ${us.best.toFixed(1)} µs);
its share of a create at concurrency 64 (µs × creates/s, one core): ${((us.median * a.c64) / 1e4).toFixed(1)} %
`);
process.exit(0);
