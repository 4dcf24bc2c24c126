// Real `kite scheduler` processes against a test server, and what the scheduler tests ask of that server:
// nodes as objects only, pods, their events, and polling for a condition with a deadline.
import type { Subprocess } from "bun";
import { track } from "./processes.ts";
import { KITE, freePort, type TestServer } from "./server.ts";

export interface TestScheduler {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** The insecure port serving /healthz, /readyz and /metrics without authentication. */
  port: number;
  /** What it has printed so far, stdout and stderr interleaved. */
  output(): string;
  /** `/metrics` of the insecure port. */
  metrics(): Promise<string>;
  stop(signal?: NodeJS.Signals | number): Promise<number>;
}

/**
 * Starts `kite scheduler` against `s` and resolves once its informers have synced (/readyz is ok). Its
 * insecure port is a free one on loopback: `args` given as a function of it can name it in a --config
 * file, whose healthzBindAddress replaces --address and --port as upstream's.
 */
export async function startScheduler(s: TestServer, args: string[] | ((port: number) => string[]) = []): Promise<TestScheduler> {
  const port = await freePort();
  const extra = typeof args === "function" ? args(port) : args;
  // consola logs only warnings under NODE_ENV=test (bun test's): the scheduler logs as it would for a user
  const { NODE_ENV: _, TEST: __, ...env } = process.env;
  const proc = Bun.spawn([...KITE, "scheduler", `--kubeconfig=${s.kubeconfig}`, "--secure-port=0", "--address=127.0.0.1", `--port=${port}`, ...extra], {
    stdin: "ignore", stdout: "pipe", stderr: "pipe", env,
  });
  track(proc);
  let out = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  const base = `http://127.0.0.1:${port}`;
  await until(async () => {
    if (proc.exitCode !== null) throw new Error(`kite scheduler exited ${proc.exitCode}: ${out}`);
    return (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) || undefined;
  }, "kite scheduler to be ready", 15_000).catch((e) => {
    throw new Error(`${(e as Error).message}; it said: ${out}`);
  });
  return {
    proc, port,
    output: () => out,
    metrics: () => fetch(`${base}/metrics`).then((r) => r.text()),
    async stop(signal: NodeJS.Signals | number = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

/** Polls `f` until it returns a value other than undefined, failing after `ms` with what it waited for. */
export async function until<T>(f: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** The server's answer, failing the test on an unexpected status. */
export async function ok(s: TestServer, method: string, path: string, body?: unknown): Promise<any> {
  const r = await s.call(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export interface NodeSpec {
  cpu?: string;
  memory?: string;
  pods?: string;
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: string }[];
  unschedulable?: boolean;
}

/** A Node object (no node agent): Ready, with the capacity given as both capacity and allocatable. */
export function node(name: string, o: NodeSpec = {}) {
  const capacity = { cpu: o.cpu ?? "4", memory: o.memory ?? "8Gi", pods: o.pods ?? "110" };
  return {
    apiVersion: "v1", kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...o.labels } },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: { capacity, allocatable: capacity, conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" }] },
  };
}

export const createNode = (s: TestServer, name: string, o?: NodeSpec) => ok(s, "POST", "/api/v1/nodes", node(name, o));

/** A pod of one pause container asking for `cpu` (no request when omitted); `spec` is merged over. */
export function pod(name: string, cpu?: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>) {
  return {
    apiVersion: "v1", kind: "Pod",
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { containers: [{ name: "c", image: "k8s.gcr.io/pause:3.4.1", ...(cpu ? { resources: { requests: { cpu } } } : {}) }], ...spec },
  };
}

export const createPod = (s: TestServer, ns: string, p: ReturnType<typeof pod>) => ok(s, "POST", `/api/v1/namespaces/${ns}/pods`, p);

export const getPod = (s: TestServer, ns: string, name: string) => ok(s, "GET", `/api/v1/namespaces/${ns}/pods/${name}`);

/** A fresh namespace for one test. */
export async function namespace(s: TestServer, name: string): Promise<string> {
  await ok(s, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/** The node the pod is bound to, once it is. */
export const boundNode = (s: TestServer, ns: string, name: string, ms?: number): Promise<string> =>
  until(async () => (await getPod(s, ns, name)).spec.nodeName || undefined, `${ns}/${name} to be bound`, ms);

/** The events.k8s.io/v1 events about a pod (all of the namespace when no name is given). */
export async function events(s: TestServer, ns: string, name?: string): Promise<any[]> {
  const items = (await ok(s, "GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events`)).items as any[];
  return name ? items.filter((e) => e.regarding?.name === name) : items;
}

/** Every event of `reason` about the pod, once there is one (events are written in the background). */
export const eventsOnceThere = (s: TestServer, ns: string, name: string, reason: string) =>
  until(async () => {
    const got = (await events(s, ns, name)).filter((e) => e.reason === reason);
    return got.length ? got : undefined;
  }, `a ${reason} event for ${ns}/${name}`);

/** The first event of `reason` about the pod, once there is one. */
export const eventFor = (s: TestServer, ns: string, name: string, reason: string, ms?: number) =>
  until(async () => (await events(s, ns, name)).find((e) => e.reason === reason), `a ${reason} event for ${ns}/${name}`, ms);
