// `kite up`, the whole cluster in one process: a Deployment of 100 replicas (each a `sleep` with an exec
// readiness probe) from `kubectl apply` to all Ready, then a rolling update (maxSurge 25 %) to all new and
// Ready, and the process's RSS idle and with the 100 pods. The reference, on the same run: the same 100
// `sleep` processes spawned directly by this process. Pods use the host's network (no bridge, no rules:
// nothing touches the machine's network).
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/up.bench.ts   (REPLICAS overrides 100)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kiteUp } from "../helpers/kite.ts";
import { killAll, tempDir } from "../helpers/processes.ts";
import { progress } from "./load.ts";

const REPLICAS = Number(process.env.REPLICAS ?? 100);
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

const deployment = (version: string) => JSON.stringify({
  apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "bench" },
  spec: {
    replicas: REPLICAS, selector: { matchLabels: { app: "bench" } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
    template: {
      metadata: { labels: { app: "bench" } },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"], env: [{ name: "VERSION", value: version }], readinessProbe: { exec: { command: ["true"] }, periodSeconds: 10 } }],
      },
    },
  },
});

/** Seconds from now until the Deployment reports every replica updated and ready at its newest generation. */
async function untilRolledOut(kubeconfig: string, limitS: number): Promise<number> {
  const t0 = performance.now();
  while ((performance.now() - t0) / 1000 < limitS) {
    const p = Bun.spawnSync(["kubectl", `--kubeconfig=${kubeconfig}`, "get", "deployment", "bench", "-o", "json"]);
    const d = p.exitCode === 0 ? JSON.parse(p.stdout.toString()) : undefined;
    const st = d?.status ?? {};
    if (st.observedGeneration === d?.metadata.generation && st.updatedReplicas === REPLICAS && st.readyReplicas === REPLICAS && st.replicas === REPLICAS) return (performance.now() - t0) / 1000;
    await Bun.sleep(50);
  }
  throw new Error(`not rolled out within ${limitS} s`);
}

async function directSpawn(): Promise<number> {
  const t0 = performance.now();
  const procs = Array.from({ length: REPLICAS }, () => Bun.spawn(["sleep", "3600"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" }));
  const took = performance.now() - t0;
  for (const p of procs) p.kill("SIGKILL");
  return took;
}

try {
  const dir = tempDir("kite-up-bench-");
  const kubeconfig = join(dir, "kubeconfig.yaml");
  const up = await kiteUp(dir);
  for (const stream of [up.stdout, up.stderr]) void (async () => { for await (const _ of stream); })(); // drained: a full pipe would stall it
  progress("kite up is up; idling 10 s");
  await Bun.sleep(10_000);
  const idleRss = rssMiB(up.pid);

  const apply = (version: string) => {
    const p = Bun.spawnSync(["kubectl", `--kubeconfig=${kubeconfig}`, "apply", "-f", "-"], { stdin: new Blob([deployment(version)]) });
    if (p.exitCode !== 0) throw new Error(p.stderr.toString());
  };
  progress(`kubectl apply: a Deployment of ${REPLICAS}`);
  const t0 = performance.now();
  apply("1");
  await untilRolledOut(kubeconfig, 120);
  const firstS = (performance.now() - t0) / 1000;
  progress(`all ${REPLICAS} Ready in ${firstS.toFixed(2)} s; rolling update`);
  await Bun.sleep(3000);
  const withPodsRss = rssMiB(up.pid);
  const t1 = performance.now();
  apply("2");
  await untilRolledOut(kubeconfig, 180);
  const rollS = (performance.now() - t1) / 1000;
  const direct = await directSpawn();

  console.log(`kite up, a Deployment of ${REPLICAS} (sleep + exec readiness probe), pods on the host's network`);
  console.log(`  kubectl apply → all ${REPLICAS} Ready: ${firstS.toFixed(2)} s (target ≤ 5 s)`);
  console.log(`  rolling update (maxSurge 25 %, maxUnavailable 25 %) → all new and Ready: ${rollS.toFixed(2)} s (target ≤ 15 s)`);
  console.log(`  kite up RSS: idle ${idleRss.toFixed(0)} MiB, with ${REPLICAS} pods ${withPodsRss.toFixed(0)} MiB (target idle ≤ 150 MB)`);
  console.log(`  reference: ${REPLICAS} sleeps spawned directly in ${direct.toFixed(0)} ms`);
  const p = Bun.spawnSync(["kubectl", `--kubeconfig=${kubeconfig}`, "delete", "deployment", "bench", "--wait=true", "--timeout=60s"]);
  if (p.exitCode !== 0) progress(`cleanup: ${p.stderr.toString()}`);
  up.kill("SIGINT");
  await up.exited;
} finally {
  killAll();
}
