// The events a real `kite node-agent` records, as upstream's kubelet: core/v1 Events from source kubelet
// on the node, which `kubectl describe pod` (1.20) lists — Created and Started per container, Unhealthy
// for each failed readiness probe (a timed-out exec one too), BackOff for a crash-looping container (one Event, counted up), Failed
// and OutOfcpu, Killing when a pod is deleted — and the Node's Starting and condition events.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const KUBECTL_1_20 = "/opt/kubernetes-client-1.20/usr/bin/kubectl";
let s: TestServer, agent: TestNodeAgent;

const runPod = (name: string, containers: unknown[]) =>
  ok(s, "POST", "/api/v1/namespaces/default/pods", { metadata: { name }, spec: { nodeName: agent.name, terminationGracePeriodSeconds: 1, containers } });
const events = async (selector: string) =>
  (await s.call("GET", `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(selector)}`)).body.items as any[];
const eventWhen = (selector: string, what: string, f: (e: any) => boolean = () => true) =>
  until(async () => (await events(selector)).find(f), what, 20_000);

beforeAll(async () => {
  s = await startServer();
  // --sync-frequency 1s: a pod in back-off is synced (and its BackOff recorded) every second
  agent = await startNodeAgent(s, ["--sync-frequency=1s"]);
  await Promise.all([
    runPod("web", [{
      name: "c", image: "busybox:1.33", command: ["sleep", "3600"],
      readinessProbe: { exec: { command: ["sh", "-c", "echo not yet; exit 1"] }, periodSeconds: 1 },
    }]),
    runPod("slow", [{
      name: "c", image: "busybox:1.33", command: ["sleep", "3600"],
      readinessProbe: { exec: { command: ["sleep", "30.25"] }, timeoutSeconds: 1, periodSeconds: 1 },
    }]),
    runPod("crash", [{ name: "c", image: "busybox:1.33", command: ["sh", "-c", "exit 1"] }]),
    runPod("noconfig", [{ name: "c", image: "busybox:1.33", command: ["sleep", "3600"], env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "missing", key: "k" } } }] }]),
    runPod("huge", [{ name: "c", image: "busybox:1.33", command: ["sleep", "3600"], resources: { requests: { cpu: "100000" } } }]),
  ]);
}, 60_000);
afterAll(async () => { await agent?.stop(); await s?.stop(); });

test("kubectl describe pod shows the kubelet's Created and Started, and Unhealthy for a failing readiness probe", async () => {
  await eventWhen("involvedObject.name=web,reason=Unhealthy", "web's Unhealthy event");
  const p = Bun.spawn([KUBECTL_1_20, `--kubeconfig=${s.kubeconfig}`, "describe", "pod", "web"], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(p.stdout).text();
  expect(await p.exited).toBe(0);
  const section = out.slice(out.indexOf("Events:"));
  expect(section).toMatch(/Normal\s+Created\s+.*kubelet\s+Created container c/);
  expect(section).toMatch(/Normal\s+Started\s+.*kubelet\s+Started container c/);
  expect(section).toMatch(/Warning\s+Unhealthy\s+.*kubelet\s+Readiness probe failed: not yet/);
  const [started] = await events("involvedObject.name=web,reason=Started");
  expect(started).toMatchObject({
    source: { component: "kubelet", host: agent.name }, reportingComponent: "kubelet", reportingInstance: agent.name,
    involvedObject: { kind: "Pod", name: "web", namespace: "default", fieldPath: "spec.containers{c}" }, type: "Normal",
  });
});

test("an exec probe past its timeoutSeconds fails with upstream's message, and its command is killed", async () => {
  const ev = await eventWhen("involvedObject.name=slow,reason=Unhealthy", "slow's Unhealthy event counted twice", (e) => e.count > 1);
  expect(ev.message).toBe('Readiness probe failed: command "sleep 30.25" timed out');
  // each timed-out run was killed: at most the one under way is left
  const running = (await Bun.$`pgrep -f -x ${"sleep 30.25"}`.nothrow().text()).trim().split("\n").filter(Boolean);
  expect(running.length).toBeLessThanOrEqual(1);
});

test("a crash-looping container's BackOff is one Event whose count goes up", async () => {
  const ev = await eventWhen("involvedObject.name=crash,reason=BackOff", "crash's BackOff counted twice", (e) => e.count > 1);
  expect(ev).toMatchObject({ type: "Warning", message: "Back-off restarting failed container", involvedObject: { fieldPath: "spec.containers{c}" } });
  expect((await events("involvedObject.name=crash,reason=BackOff")).length).toBe(1);
  // each run was created and started: one Event each, counted
  const created = await eventWhen("involvedObject.name=crash,reason=Created", "crash created twice", (e) => e.count >= 2);
  expect(created.message).toBe("Created container c");
});

test("a container that cannot be configured gets Failed; a pod that does not fit is rejected with OutOfcpu", async () => {
  const failed = await eventWhen("involvedObject.name=noconfig,reason=Failed", "noconfig's Failed event");
  expect(failed).toMatchObject({ type: "Warning", message: 'Error: configmap "missing" not found', involvedObject: { fieldPath: "spec.containers{c}" } });
  const rejected = await eventWhen("involvedObject.name=huge,reason=OutOfcpu", "huge's OutOfcpu event");
  expect(rejected.type).toBe("Warning");
  expect(rejected.message).toStartWith("Node didn't have enough resource: cpu, requested: 100000000, used: 0, capacity: ");
});

test("deleting a pod records Killing for its running container", async () => {
  await ok(s, "DELETE", "/api/v1/namespaces/default/pods/web");
  const ev = await eventWhen("involvedObject.name=web,reason=Killing", "web's Killing event");
  expect(ev).toMatchObject({ type: "Normal", message: "Stopping container c" });
});

test("the Node's events: Starting, then its conditions at registration", async () => {
  const on = `involvedObject.kind=Node,involvedObject.name=${agent.name}`;
  const starting = await eventWhen(`${on},reason=Starting`, "Starting");
  expect(starting).toMatchObject({ type: "Normal", message: "Starting kubelet.", involvedObject: { uid: agent.name }, source: { component: "kubelet", host: agent.name } });
  for (const reason of ["NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID", "NodeReady"]) {
    const ev = await eventWhen(`${on},reason=${reason}`, reason);
    expect(ev.message).toBe(`Node ${agent.name} status is now: ${reason}`);
  }
});
