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
import { cpuOf, progress } from "./load.ts";
import { Client, type Obj } from "../../pkg/client/client.ts";
import { loadClientConfig } from "../../pkg/client/kubeconfig.ts";
import { RESOURCES } from "../../pkg/client/resources.ts";
import { Transport } from "../../pkg/client/transport.ts";

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

/** The Deployment's status and, per pod, when the watch first saw it created, bound, running and Ready (ms since the start). */
function observe(client: Client, note?: (line: string) => void) {
  const t0 = performance.now();
  const pods = new Map<string, { created: number; bound?: number; running?: number; ready?: number }>();
  let deployment: Obj | undefined;
  const watch = async (resource: typeof RESOURCES.pods, on: (o: Obj) => void) => { for await (const ev of client.watch(resource, { namespace: "default" })) on(ev.object); };
  void watch(RESOURCES.pods, (p) => {
    const now = performance.now() - t0;
    const e = pods.get(p.metadata.name) ?? { created: now };
    pods.set(p.metadata.name, e);
    if (e.bound === undefined && p.spec.nodeName) { e.bound = now; note?.(`bound ${p.metadata.name}`); }
    if (e.running === undefined && p.status?.containerStatuses?.some((c: Obj) => c.state?.running)) { e.running = now; note?.(`running ${p.metadata.name}`); }
    if (e.ready === undefined && p.status?.conditions?.some((c: Obj) => c.type === "Ready" && c.status === "True")) e.ready = now;
  });
  void watch(RESOURCES.deployments, (d) => { if (d.metadata.name === "bench") deployment = d; });
  return {
    pods,
    /** ms since the watches started. */
    clock: () => performance.now() - t0,
    /** Seconds from now until the Deployment reports every replica updated and ready at its newest generation. */
    async untilRolledOut(generation: number, limitS: number): Promise<number> {
      const start = performance.now();
      while ((performance.now() - start) / 1000 < limitS) {
        const st = deployment?.status ?? {};
        if (deployment?.metadata.generation === generation && st.observedGeneration === generation && st.updatedReplicas === REPLICAS && st.readyReplicas === REPLICAS && st.replicas === REPLICAS) return (performance.now() - start) / 1000;
        await Bun.sleep(20);
      }
      throw new Error(`not rolled out within ${limitS} s`);
    },
  };
}

/** When the n-th of the pods made after `since` reached each step (ms after `since`). */
function timeline(pods: Map<string, { created: number; bound?: number; running?: number; ready?: number }>, since: number): string {
  const fresh = [...pods.values()].filter((p) => p.created >= since);
  const at = (k: "created" | "bound" | "running" | "ready", n: number) => {
    const xs = fresh.map((p) => p[k]).filter((x): x is number => x !== undefined).sort((a, b) => a - b);
    return xs.length >= n ? `${((xs[n - 1] - since) / 1000).toFixed(1)}` : "-";
  };
  const marks = [Math.ceil(REPLICAS / 4), Math.ceil(REPLICAS / 2), REPLICAS];
  return (["created", "bound", "running", "ready"] as const).map((k) => `${k} ${marks.map((n) => at(k, n)).join("/")}`).join(", ");
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
  // drained (a full pipe would stall it); UP_LOG=FILE keeps its log, each chunk stamped with the bench's clock
  const log = process.env.UP_LOG ? Bun.file(process.env.UP_LOG).writer() : undefined;
  for (const stream of [up.stdout, up.stderr]) void (async () => { for await (const chunk of stream) log?.write(`[${(performance.now() / 1000).toFixed(2)}] ${new TextDecoder().decode(chunk)}`); })();
  progress("kite up is up; idling 10 s");
  await Bun.sleep(10_000);
  const idleRss = rssMiB(up.pid);

  const apply = (version: string) => {
    const p = Bun.spawnSync(["kubectl", `--kubeconfig=${kubeconfig}`, "apply", "-f", "-"], { stdin: new Blob([deployment(version)]) });
    if (p.exitCode !== 0) throw new Error(p.stderr.toString());
  };
  const client = new Client(new Transport(await loadClientConfig({ kubeconfig, cacheDir: tempDir("kite-client-cache-") })));
  const seen = observe(client, log && ((line) => log.write(`[${(performance.now() / 1000).toFixed(2)}] bench: ${line}\n`)));
  await Bun.sleep(500);
  progress(`kubectl apply: a Deployment of ${REPLICAS}`);
  const t0 = performance.now(), cpu0 = cpuOf(up.pid), since0 = seen.clock();
  apply("1");
  await seen.untilRolledOut(1, 120);
  const firstS = (performance.now() - t0) / 1000, firstCpu = cpuOf(up.pid) - cpu0;
  const firstTimeline = timeline(seen.pods, since0);
  progress(`all ${REPLICAS} Ready in ${firstS.toFixed(2)} s; rolling update`);
  await Bun.sleep(3000);
  const withPodsRss = rssMiB(up.pid);
  const t1 = performance.now(), cpu1 = cpuOf(up.pid), since = seen.clock();
  apply("2");
  await seen.untilRolledOut(2, 180);
  const rollS = (performance.now() - t1) / 1000, rollCpu = cpuOf(up.pid) - cpu1;
  const direct = await directSpawn();
  const failed = (await client.list(RESOURCES.events, { namespace: "default" })).items.filter((e: Obj) => e.reason === "FailedScheduling");

  console.log(`kite up, a Deployment of ${REPLICAS} (sleep + exec readiness probe), pods on the host's network`);
  console.log(`  kubectl apply → all ${REPLICAS} Ready: ${firstS.toFixed(2)} s (target ≤ 5 s)`);
  console.log(`    kite up's CPU ${firstCpu.toFixed(2)} s; seconds until 25/50/100 % of the pods were ${firstTimeline}`);
  console.log(`  rolling update (maxSurge 25 %, maxUnavailable 25 %) → all new and Ready: ${rollS.toFixed(2)} s (target ≤ 15 s)`);
  console.log(`    kite up's CPU ${rollCpu.toFixed(2)} s; new pods ${timeline(seen.pods, since)}`);
  console.log(`    FailedScheduling events: ${failed.reduce((a: number, e: Obj) => a + (e.count ?? 1), 0)}${failed.length ? ` (${failed[0].note ?? failed[0].message})` : ""}`);
  console.log(`  kite up RSS: idle ${idleRss.toFixed(0)} MiB, with ${REPLICAS} pods ${withPodsRss.toFixed(0)} MiB (target idle ≤ 150 MB)`);
  console.log(`  reference: ${REPLICAS} sleeps spawned directly in ${direct.toFixed(0)} ms`);
  const p = Bun.spawnSync(["kubectl", `--kubeconfig=${kubeconfig}`, "delete", "deployment", "bench", "--wait=true", "--timeout=60s"]);
  if (p.exitCode !== 0) progress(`cleanup: ${p.stderr.toString()}`);
  up.kill("SIGINT");
  await up.exited;
} finally {
  killAll();
}
