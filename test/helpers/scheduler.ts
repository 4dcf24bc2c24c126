// Real `kite scheduler` processes against a test server, and what the scheduler tests ask of that server:
// nodes as objects only, pods, their events, and polling for a condition with a deadline.
import { startComponent, type TestComponent, until } from "./component.ts";
import { freePort, type TestServer } from "./server.ts";

export { until };

export interface TestScheduler extends TestComponent {
  /** The insecure port serving /healthz, /readyz and /metrics without authentication. */
  port: number;
  /** `/metrics` of the insecure port. */
  metrics(): Promise<string>;
}

/**
 * Starts `kite scheduler` against `s` and resolves once its informers have synced (/readyz is ok). Its
 * insecure port is a free one on loopback: `args` given as a function of it can name it in a --config
 * file, whose healthzBindAddress replaces --address and --port as upstream's.
 */
export async function startScheduler(s: TestServer, args: string[] | ((port: number) => string[]) = []): Promise<TestScheduler> {
  const port = await freePort();
  const extra = typeof args === "function" ? args(port) : args;
  const base = `http://127.0.0.1:${port}`;
  const c = await startComponent(["scheduler", `--kubeconfig=${s.kubeconfig}`, "--secure-port=0", "--address=127.0.0.1", `--port=${port}`, ...extra],
    "kite scheduler to be ready", () => fetch(`${base}/readyz`).then((r) => r.ok, () => false), 15_000);
  return { ...c, port, metrics: () => fetch(`${base}/metrics`).then((r) => r.text()) };
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

/**
 * Creates the Node, then takes off the not-ready taint TaintNodesByCondition admission gave it: the node
 * lifecycle controller would, seeing it Ready, and these tests run none.
 */
export async function createNode(s: TestServer, name: string, o?: NodeSpec): Promise<any> {
  await ok(s, "POST", "/api/v1/nodes", node(name, o));
  const r = await s.call("PATCH", `/api/v1/nodes/${name}`, { spec: { taints: o?.taints ?? null } }, { "Content-Type": "application/merge-patch+json" });
  if (r.status !== 200) throw new Error(`PATCH node ${name} taints: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

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
