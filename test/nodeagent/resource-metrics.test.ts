// Resource metrics end to end: the node agent's /stats/summary and /metrics/resource (read through
// nodes/proxy, as a user would) from its pods' cgroups and /proc, and metrics.k8s.io NodeMetrics and
// PodMetrics computed from them by the API server, so that `kubectl top` (1.20, 1.33) works as it is.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { until } from "../helpers/component.ts";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { track } from "../helpers/processes.ts";
import { ok } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const KUBECTLS = ["/opt/kubernetes-client-1.20/usr/bin/kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"].filter(existsSync);
const NS = "default";

let s: TestServer, agent: TestNodeAgent;

async function run(bin: string, args: string[]) {
  const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, ...args], { stdout: "pipe", stderr: "pipe" });
  track(p);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

const pod = (name: string, script: string) => ({
  apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: name } },
  spec: { nodeName: agent.name, containers: [{ name: "main", image: "busybox", command: ["sh", "-c", script], resources: { requests: { cpu: "50m" } } }] },
});

beforeAll(async () => {
  s = await startServer(["--kubelet-preferred-address-types=InternalIP,Hostname"]);
  agent = await startNodeAgent(s);
  await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, pod("burn", "while :; do :; done"));
  await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, pod("idle", "sleep 3600"));
  for (const name of ["burn", "idle"]) {
    await until(async () => (await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`)).body?.status?.phase === "Running" || undefined, `${name} running`, 20_000);
  }
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

const raw = async (path: string) => {
  const r = await s.req(path);
  expect(r.status).toBe(200);
  return r.text();
};

test("/stats/summary: the node's cpu, memory and filesystem; each pod's and container's cpu and memory", async () => {
  const sum = JSON.parse(await raw(`/api/v1/nodes/${agent.name}/proxy/stats/summary`));
  expect(sum.node.fs.capacityBytes).toBeGreaterThan(sum.node.fs.usedBytes);
  expect(sum.node).toMatchObject({ nodeName: agent.name, cpu: { usageCoreNanoSeconds: expect.any(Number) }, memory: { workingSetBytes: expect.any(Number), availableBytes: expect.any(Number) } });
  const burn = sum.pods.find((p: { podRef: { name: string } }) => p.podRef.name === "burn");
  expect(burn.podRef).toMatchObject({ namespace: NS, uid: expect.any(String) });
  const c = burn.containers[0];
  expect(c.cpu.usageCoreNanoSeconds).toBeGreaterThan(0);
  expect(c.memory.usageBytes).toBeGreaterThan(0);
  expect(c).toMatchObject({ name: "main", cpu: { usageCoreNanoSeconds: expect.any(Number) }, memory: { usageBytes: expect.any(Number), workingSetBytes: expect.any(Number), rssBytes: expect.any(Number) } });
  // a second read a second later has a rate: the busy loop's is most of a core (well above its idle neighbour's)
  const later = await until(async () => {
    await Bun.sleep(1100);
    const x = JSON.parse(await raw(`/api/v1/nodes/${agent.name}/proxy/stats/summary`));
    return x.pods.every((p: { containers: { cpu: { usageNanoCores?: number } }[] }) => p.containers[0].cpu.usageNanoCores !== undefined) ? x : undefined;
  }, "cpu rates", 10_000);
  const rate = (name: string) => later.pods.find((p: { podRef: { name: string } }) => p.podRef.name === name).containers[0].cpu.usageNanoCores;
  expect(rate("burn")).toBeGreaterThan(100e6);
  expect(rate("idle")).toBeLessThan(rate("burn") / 4);
});

test("/metrics/resource: the resource metrics families of v1.21's kubelet", async () => {
  const text = await raw(`/api/v1/nodes/${agent.name}/proxy/metrics/resource`);
  for (const family of ["node_cpu_usage_seconds_total", "node_memory_working_set_bytes", "container_cpu_usage_seconds_total", "container_memory_working_set_bytes", "pod_cpu_usage_seconds_total", "pod_memory_working_set_bytes"]) {
    expect(text).toContain(`# TYPE ${family} `);
  }
  expect(text).toMatch(/^container_cpu_usage_seconds_total\{container="main",namespace="default",pod="burn"\} [\d.e+]+ \d{13}$/m);
  expect(text).toMatch(/^pod_memory_working_set_bytes\{namespace="default",pod="idle"\} \d+ \d{13}$/m);
  expect(text).toContain("\nscrape_error 0\n");
});

test("metrics.k8s.io: discovery, PodMetrics by label, a missing one in upstream's words", async () => {
  const d = (await s.call("GET", "/apis/metrics.k8s.io/v1beta1")).body;
  expect(d.resources.map((r: { name: string; kind: string; namespaced: boolean }) => [r.name, r.kind, r.namespaced])).toEqual([["nodes", "NodeMetrics", false], ["pods", "PodMetrics", true]]);
  const list = (await s.call("GET", `/apis/metrics.k8s.io/v1beta1/namespaces/${NS}/pods?labelSelector=app%3Dburn`)).body;
  expect(list.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(["burn"]);
  expect(list.items[0]).toMatchObject({ kind: "PodMetrics", metadata: { namespace: NS, labels: { app: "burn" } }, window: expect.stringMatching(/s$/), containers: [{ name: "main", usage: { cpu: expect.any(String), memory: expect.any(String) } }] });
  expect((await s.call("GET", `/apis/metrics.k8s.io/v1beta1/namespaces/${NS}/pods/none`)).body).toMatchObject({ code: 404, message: `pods.metrics.k8s.io "none" not found` });
  const node = (await s.call("GET", `/apis/metrics.k8s.io/v1beta1/nodes/${agent.name}`)).body;
  expect(node).toMatchObject({ kind: "NodeMetrics", metadata: { name: agent.name }, usage: { cpu: expect.any(String), memory: expect.stringMatching(/^\d+(Ki|Mi|Gi)?$/) } });
});

/** kubectl top's millicores column as a number. */
const milli = (line: string | undefined) => Number(/\s(\d+)m\s/.exec(line ?? "")?.[1] ?? NaN);

for (const bin of KUBECTLS) {
  const version = bin.match(/1\.\d+/)![0];
  describe(`kubectl ${version}`, () => {
    test("kubectl top nodes", async () => {
      const r = await run(bin, ["top", "nodes"]);
      expect(r.code).toBe(0);
      // 1.20 heads them CPU% and MEMORY%, newer builds CPU(%) and MEMORY(%)
      expect(r.out).toMatch(/^NAME\s+CPU\(cores\)\s+CPU\(?%\)?\s+MEMORY\(bytes\)\s+MEMORY\(?%/);
      expect(r.out).toMatch(new RegExp(`^${agent.name}\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%`, "m"));
    });

    test("kubectl top pods: the busy loop's cpu, and a selector", async () => {
      const r = await run(bin, ["top", "pods", "-n", NS]);
      expect(r.code).toBe(0);
      const lines = r.out.split("\n");
      expect(lines[0]).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/);
      expect(milli(lines.find((l) => l.startsWith("burn ")))).toBeGreaterThan(100);
      expect(milli(lines.find((l) => l.startsWith("idle ")))).toBeLessThan(50);
      const selected = await run(bin, ["top", "pods", "-n", NS, "-l", "app=idle"]);
      expect(selected.out.trim().split("\n").slice(1).map((l) => l.split(/\s+/)[0])).toEqual(["idle"]);
    });
  });
}
