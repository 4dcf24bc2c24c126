// `kite node-agent` registers its Node (capacity, labels, taints, addresses, nodeInfo, conditions as
// upstream's kubelet), renews its Lease every 10 s, writes status only when it changed, and refuses bad
// flags with one line.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { statfsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { until } from "../helpers/scheduler.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, agent: TestNodeAgent;

beforeAll(async () => {
  s = await startServer();
  agent = await startNodeAgent(s, ["--node-labels=zone=a,node.kubernetes.io/role=worker", "--register-with-taints=dedicated=agents:NoSchedule,gpu:NoExecute", "--max-pods=42", "--node-status-update-frequency=1s"]);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

test("the Node: labels, taints, addresses, capacity from the host, nodeInfo and upstream's conditions", async () => {
  const node = (await s.call("GET", `/api/v1/nodes/${agent.name}`)).body;
  expect(node.metadata.labels).toMatchObject({
    zone: "a", "node.kubernetes.io/role": "worker", "kubernetes.io/hostname": agent.name, "kubernetes.io/os": "linux",
    "kubernetes.io/arch": process.arch === "x64" ? "amd64" : process.arch,
  });
  // --register-with-taints, and the not-ready taint TaintNodesByCondition admission gives a new Node (no node
  // lifecycle controller runs here to take it off once the node is Ready)
  expect(node.spec.taints).toEqual([
    { key: "dedicated", value: "agents", effect: "NoSchedule" }, { key: "gpu", effect: "NoExecute" },
    { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" },
  ]);
  expect(node.status.addresses).toEqual([{ type: "InternalIP", address: "127.0.0.1" }, { type: "Hostname", address: agent.name }]);
  const fs = statfsSync(agent.rootDir);
  const memKi = Number(/MemTotal:\s+(\d+)/.exec(await Bun.file("/proc/meminfo").text())![1]);
  expect(node.status.capacity.cpu).toBe(String(availableParallelism()));
  expect(node.status.capacity.pods).toBe("42");
  const bytes = (q: string) => Number(/^\d+/.exec(q)![0]) * 1024 ** ["", "Ki", "Mi", "Gi", "Ti"].indexOf(/[KMGT]i$|$/.exec(q)![0]);
  expect(bytes(node.status.capacity.memory)).toBe(memKi * 1024);
  expect(bytes(node.status.capacity["ephemeral-storage"])).toBe(fs.blocks * fs.bsize);
  // allocatable is capacity less the default hard eviction thresholds: memory.available<100Mi, nodefs.available<10%
  expect(node.status.allocatable.cpu).toBe(node.status.capacity.cpu);
  expect(bytes(node.status.allocatable.memory)).toBe(memKi * 1024 - 100 * 2 ** 20);
  expect(bytes(node.status.allocatable["ephemeral-storage"])).toBe(Math.floor(fs.blocks * fs.bsize * 0.9));
  expect(node.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).toEqual([
    ["MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
    ["DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
    ["PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"],
    ["Ready", "True", "KubeletReady", "kubelet is posting ready status"],
  ]);
  const info = node.status.nodeInfo;
  expect(info.kubeletVersion).toMatch(/^v1\.21\./);
  expect(info.containerRuntimeVersion).toMatch(/^kite-process:\/\//);
  expect(info.bootID).toBe((await Bun.file("/proc/sys/kernel/random/boot_id").text()).trim());
  expect(info.operatingSystem).toBe("linux");
  expect(info.kernelVersion).toBe((await Bun.$`uname -r`.text()).trim());
});

test("the Lease kube-node-lease/<node>: held by the node, owned by the Node, renewed every 10 s; status is not rewritten while unchanged", async () => {
  const path = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${agent.name}`;
  const node = (await s.call("GET", `/api/v1/nodes/${agent.name}`)).body;
  const first = await until(async () => { const r = await s.call("GET", path); return r.status === 200 ? r.body : undefined; }, "the lease");
  expect(first.spec).toMatchObject({ holderIdentity: agent.name, leaseDurationSeconds: 40 });
  expect(first.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: agent.name, uid: node.metadata.uid }]);
  const renewed = await until(async () => {
    const l = (await s.call("GET", path)).body;
    return l.spec.renewTime !== first.spec.renewTime ? l : undefined;
  }, "the lease to be renewed", 20_000);
  const gap = Date.parse(renewed.spec.renewTime) - Date.parse(first.spec.renewTime);
  expect(gap).toBeGreaterThan(8_000);
  expect(gap).toBeLessThan(15_000);
  // --node-status-update-frequency=1s, yet nothing changed: the Node was not written again
  expect((await s.call("GET", `/api/v1/nodes/${agent.name}`)).body.metadata.resourceVersion).toBe(node.metadata.resourceVersion);
}, 30_000);

test("bad flag values and unknown flags exit 2 with one line", () => {
  for (const [flag, says] of [
    ["--max-pods=many", `invalid argument "many" for "--max-pods" flag`],
    ["--node-ip=10.0.0", `invalid argument "10.0.0" for "--node-ip" flag`],
    ["--register-with-taints=a=b:Sometimes", "invalid taint effect: Sometimes"],
    ["--node-labels=kubernetes.io/role=x", "unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [kubernetes.io/role]"],
    ["--file-check-frequency=soon", `invalid argument "soon" for "--file-check-frequency" flag`],
    ["--eviction-hard=memory.available>1Gi", "invalid eviction threshold syntax memory.available>1Gi"],
    ["--no-such-option=1", "unknown flag: --no-such-option"],
  ]) {
    const r = Bun.spawnSync([...KITE, "node-agent", flag]);
    expect(r.exitCode).toBe(2);
    const err = r.stderr.toString().trim();
    expect(err.split("\n")).toHaveLength(1);
    expect(err).toContain(says);
  }
  const help = Bun.spawnSync([...KITE, "node-agent", "--help"]).stdout.toString();
  for (const s of ["--register-node", "--pod-manifest-path", "--file-check-frequency", "--tls-cipher-suites", "--hairpin-mode", "--manifest-url", "--kube-reserved"]) expect(help).toContain(s);
});

test("a Node another writer marked Unknown (the node lifecycle controller) is set Ready again at the next status round", async () => {
  const unknown = { type: "Ready", status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastHeartbeatTime: "2021-01-01T00:00:00Z", lastTransitionTime: "2021-01-01T00:00:00Z" };
  const r = await s.call("PATCH", `/api/v1/nodes/${agent.name}/status`, { status: { conditions: [unknown] } }, { "Content-Type": "application/strategic-merge-patch+json" });
  expect(r.status).toBe(200);
  expect(r.body.status.conditions.find((c: any) => c.type === "Ready").status).toBe("Unknown");
  const ready = async () => (await s.call("GET", `/api/v1/nodes/${agent.name}`)).body.status.conditions.find((c: any) => c.type === "Ready");
  // --node-status-update-frequency=1s: well before the 5-minute report
  const back = await until(async () => { const c = await ready(); return c.status === "True" ? c : undefined; }, "Ready True again", 10_000);
  expect(back).toMatchObject({ reason: "KubeletReady", message: "kubelet is posting ready status" });
  expect(back.lastTransitionTime).not.toBe("2021-01-01T00:00:00Z");
});
