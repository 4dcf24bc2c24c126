// A node agent configured by a KubeletConfiguration file (--config) and fed static pods by --manifest-url:
// the Node reports what the file says (provider ID, pods, allocatable after reservations), a flag given on
// the command line beats the file and warns it is deprecated, pods that do not fit are rejected as
// upstream's kubelet rejects them, and the URL's pods run with mirror pods.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, agent: TestNodeAgent, manifests: ReturnType<typeof Bun.serve>;
const NS = "default";
/** What the manifest URL serves; the test changes it. */
let served = "";
const seenHeaders: string[] = [];

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1", kind: "Pod", metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox", command: ["sleep", "60"], ...extra }] },
});

beforeAll(async () => {
  s = await startServer();
  manifests = Bun.serve({
    hostname: "127.0.0.1", port: 0,
    fetch(req) {
      seenHeaders.push(req.headers.get("x-token") ?? "");
      return new Response(served);
    },
  });
  served = JSON.stringify({ apiVersion: "v1", kind: "PodList", items: [pod("from-url")] });
  const config = join(tempDir("kite-kubelet-config-"), "config.yaml");
  writeFileSync(config, `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
maxPods: 50
providerID: kite://rack-1/node
kubeReserved:
  memory: 1Gi
staticPodURL: http://127.0.0.1:${manifests.port}/pods
staticPodURLHeader:
  X-Token: [secret]
httpCheckFrequency: 1s
authorization:
  mode: AlwaysAllow
`);
  // --max-pods on the command line beats the file's 50
  agent = await startNodeAgent(s, [`--config=${config}`, "--max-pods=3"]);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
  manifests?.stop(true);
});

const getPod = async (name: string) => {
  const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`);
  return r.status === 200 ? r.body : undefined;
};
const podWhen = (name: string, what: string, f: (p: any) => boolean, ms = 15_000) =>
  until(async () => { const p = await getPod(name); return p && f(p) ? p : undefined; }, `${name}: ${what}`, ms);

test("the Node reports the file's settings, and the command line's --max-pods over the file's", async () => {
  const node = (await s.call("GET", `/api/v1/nodes/${agent.name}`)).body;
  expect(node.spec.providerID).toBe("kite://rack-1/node");
  expect(node.status.capacity.pods).toBe("3");
  const memory = (q: string) => Number(q.replace(/Ki$/, "")) * (q.endsWith("Ki") ? 1024 : 1);
  // kube-reserved 1Gi and the default hard eviction threshold (100Mi) come off allocatable memory
  expect(memory(node.status.capacity.memory) - memory(node.status.allocatable.memory)).toBe(2 ** 30 + 100 * 2 ** 20);
  expect(agent.output()).toContain("Flag --max-pods has been deprecated, This parameter should be set via the config file specified by the Kubelet's --config flag.");
});

test("--manifest-url: the URL's pods run as static pods with mirror pods; the configured header is sent", async () => {
  const mirror = await podWhen(`from-url-${agent.name}`, "Running", (p) => p.status?.phase === "Running");
  expect(mirror.metadata.annotations["kubernetes.io/config.source"]).toBe("http");
  expect(mirror.metadata.annotations["kubernetes.io/config.mirror"]).toBe(mirror.metadata.annotations["kubernetes.io/config.hash"]);
  expect(seenHeaders).toContain("secret");
  // the URL stops serving the pod: it stops and its mirror pod goes
  served = "";
  await until(async () => (await getPod(`from-url-${agent.name}`)) ? undefined : true, "the mirror pod to go", 15_000);
});

test("admission: a pod asking more than the node's allocatable is Failed with OutOfcpu; past --max-pods, OutOfpods", async () => {
  await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { ...pod("greedy", { resources: { requests: { cpu: "1000" } } }), spec: { ...pod("greedy", { resources: { requests: { cpu: "1000" } } }).spec, nodeName: agent.name } });
  const greedy = await podWhen("greedy", "Failed", (p) => p.status?.phase === "Failed");
  expect(greedy.status.reason).toBe("OutOfcpu");
  expect(greedy.status.message).toMatch(/^Pod Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: \d+$/);
  expect(greedy.status.containerStatuses).toBeUndefined();
  // three pods fit (capacity 3); the fourth does not
  for (const name of ["p1", "p2", "p3"]) await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { ...pod(name), spec: { ...pod(name).spec, nodeName: agent.name } });
  for (const name of ["p1", "p2", "p3"]) await podWhen(name, "Running", (p) => p.status?.phase === "Running");
  await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { ...pod("p4"), spec: { ...pod("p4").spec, nodeName: agent.name } });
  const p4 = await podWhen("p4", "Failed", (p) => p.status?.phase === "Failed");
  expect(p4.status).toMatchObject({ reason: "OutOfpods", message: "Pod Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3" });
});

test("the agent's submission source: POST /pods runs a pod (with a mirror pod), DELETE takes it back; bad bodies are 400", async () => {
  const node = (await s.call("GET", `/api/v1/nodes/${agent.name}`)).body;
  const url = `https://127.0.0.1:${node.status.daemonEndpoints.kubeletEndpoint.Port}`;
  // --config turns on token webhook authentication: the test's admin token is reviewed by the API server
  const call = (method: string, path: string, body?: string) =>
    fetch(`${url}${path}`, { method, body, headers: { Authorization: "Bearer test" }, tls: { rejectUnauthorized: false } } as RequestInit);
  const yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: submitted\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: c\n    image: busybox\n    command: [sleep, '60']\n";
  const r = await call("POST", "/pods", yaml);
  expect(r.status).toBe(201);
  const list = await r.json() as any;
  expect(list.items.map((p: any) => p.metadata.name)).toEqual([`submitted-${agent.name}`]);
  const mirror = await podWhen(`submitted-${agent.name}`, "Running", (p) => p.status?.phase === "Running");
  expect(mirror.metadata.annotations["kubernetes.io/config.source"]).toBe("http");
  // anonymous callers are refused (the file's authentication defaults)
  expect((await fetch(`${url}/pods`, { method: "POST", body: yaml, tls: { rejectUnauthorized: false } } as RequestInit)).status).toBe(401);
  const bad = await call("POST", "/pods", JSON.stringify({ apiVersion: "v1", kind: "Service", metadata: { name: "x" } }));
  expect(bad.status).toBe(400);
  expect(await bad.text()).toContain("not a v1 Pod or PodList (kind Service, apiVersion v1)");
  expect((await call("DELETE", "/pods/default/submitted")).status).toBe(200);
  await until(async () => (await getPod(`submitted-${agent.name}`)) ? undefined : true, "the submitted pod's mirror to go", 15_000);
  expect((await call("DELETE", "/pods/default/submitted")).status).toBe(404);
});
