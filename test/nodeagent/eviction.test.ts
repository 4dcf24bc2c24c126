// Eviction against the host's real figures: an agent whose hard memory threshold is above this machine's
// memory is always under pressure. Its Node reports MemoryPressure, a BestEffort pod is refused at
// admission, and a running pod is evicted (Failed, reason Evicted, upstream's message, processes gone).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, agent: TestNodeAgent;
const NS = "default";

beforeAll(async () => {
  s = await startServer();
  agent = await startNodeAgent(s, ["--eviction-hard=memory.available<1000Gi", "--housekeeping-interval=300ms", "--eviction-pressure-transition-period=1s"]);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

const podWhen = (name: string, what: string, f: (p: any) => boolean, ms = 15_000) =>
  until(async () => { const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`); return r.status === 200 && f(r.body) ? r.body : undefined; }, `${name}: ${what}`, ms);
const create = (name: string, resources: object) => ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, {
  apiVersion: "v1", kind: "Pod", metadata: { name },
  spec: { nodeName: agent.name, containers: [{ name: "c", image: "busybox", command: ["sleep", "60"], resources }] },
});

test("the Node reports MemoryPressure with upstream's reason and message", async () => {
  const node = await until(async () => {
    const n = (await s.call("GET", `/api/v1/nodes/${agent.name}`)).body;
    return n.status.conditions.find((c: any) => c.type === "MemoryPressure")?.status === "True" ? n : undefined;
  }, "MemoryPressure", 10_000);
  expect(node.status.conditions.find((c: any) => c.type === "MemoryPressure")).toMatchObject({ reason: "KubeletHasInsufficientMemory", message: "kubelet has insufficient memory available" });
  expect(node.status.conditions.find((c: any) => c.type === "Ready")).toMatchObject({ status: "True" });
});

test("under memory pressure a BestEffort pod is refused; a Burstable one starts, and is then evicted", async () => {
  await create("best-effort", {});
  const refused = await podWhen("best-effort", "Failed", (p) => p.status?.phase === "Failed");
  expect(refused.status).toMatchObject({ reason: "Evicted", message: "The node had condition: [MemoryPressure]. " });

  await create("burstable", { requests: { cpu: "10m" } });
  const evicted = await podWhen("burstable", "evicted", (p) => p.status?.reason === "Evicted");
  expect(evicted.status.phase).toBe("Failed");
  expect(evicted.status.message).toMatch(/^The node was low on resource: memory\. Threshold quantity: 1000Gi, available: \d+Ki\. (Container c was using \d+Ki, which exceeds its request of 0\. )?$/);
  // its container was stopped by a signal (SIGTERM, or SIGKILL: a hard threshold allows no grace), and it is not started again
  expect([137, 143]).toContain(evicted.status.containerStatuses[0].state.terminated.exitCode);
  expect(agent.output()).toContain(`evicting pod ${NS}/burstable`);
  await Bun.sleep(700);
  const later = (await s.call("GET", `/api/v1/namespaces/${NS}/pods/burstable`)).body;
  expect(later.status.phase).toBe("Failed");
  expect(later.status.containerStatuses[0].state.running).toBeUndefined();
});
