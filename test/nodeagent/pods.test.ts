// Pods bound to a `kite node-agent` run as host process groups: their status as upstream's kubelet writes
// it, their output in log files under --root-dir, restartPolicy and CrashLoopBackOff, deletion stopping
// every process, containers the process runtime cannot run, and static pods with their mirror pods.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RESOURCES } from "../../pkg/client/resources.ts";
import { clientFor } from "../helpers/client.ts";
import { alive, containerPids, logFile, logOutputWhen, startNodeAgent, stopContainers, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, agent: TestNodeAgent, manifests: string, work: string;
const NS = "default";

beforeAll(async () => {
  s = await startServer();
  manifests = tempDir("kite-manifests-");
  work = tempDir("kite-work-");
  writeFileSync(join(manifests, "web.yaml"), `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {tier: static}
spec:
  containers:
  - name: server
    image: python:3
    command: ["sh", "-c", "echo static up; sleep 60"]
`);
  writeFileSync(join(manifests, ".hidden.json"), JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "hidden" }, spec: { containers: [{ name: "c", image: "x", command: ["sleep", "60"] }] } }));
  agent = await startNodeAgent(s, [`--pod-manifest-path=${manifests}`, "--file-check-frequency=1s"]);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

const container = (command: string[], extra: Record<string, unknown> = {}) => ({ name: "c", image: "busybox:1.33", command, ...extra });

/** Creates a pod bound to the agent's node (as a scheduler's binding would leave it). */
async function runPod(name: string, containers: unknown[], spec: Record<string, unknown> = {}): Promise<any> {
  return ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: agent.name, containers, ...spec } });
}

/** The pod, or undefined while there is none. */
const getPod = async (name: string) => {
  const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`);
  return r.status === 200 ? r.body : undefined;
};

/** The pod once `f` holds of it. */
const podWhen = (name: string, what: string, f: (p: any) => boolean, ms = 15_000) =>
  until(async () => { const p = await getPod(name); return p && f(p) ? p : undefined; }, `${name}: ${what}`, ms);

const logOf = (uid: string, c: string, n = 0) => logFile(agent, uid, c, n);



test("a bound pod runs: Running with upstream's container status and conditions; its output is in its log file", async () => {
  // bound as a scheduler binds: through pods/binding, which sets PodScheduled
  const created = await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name: "hello" }, spec: { containers: [container(["sh", "-c", "echo hi; sleep 30"])] } });
  await ok(s, "POST", `/api/v1/namespaces/${NS}/pods/hello/binding`, { apiVersion: "v1", kind: "Binding", metadata: { name: "hello" }, target: { kind: "Node", name: agent.name } });
  const p = await podWhen("hello", "Running", (p) => p.status?.phase === "Running");
  const cs = p.status.containerStatuses[0];
  expect(cs).toMatchObject({ name: "c", image: "busybox:1.33", imageID: "", ready: true, started: true, restartCount: 0, lastState: {} });
  expect(cs.containerID).toMatch(/^kite-process:\/\/[0-9a-f]{64}$/);
  expect(Date.parse(cs.state.running.startedAt)).toBeGreaterThan(Date.parse(created.metadata.creationTimestamp) - 2000);
  expect(p.status).toMatchObject({ hostIP: "127.0.0.1", podIP: "127.0.0.1", qosClass: "BestEffort" });
  expect(p.status.startTime).toBeString();
  expect(p.status.conditions.map((c: any) => [c.type, c.status])).toEqual([["Initialized", "True"], ["Ready", "True"], ["ContainersReady", "True"], ["PodScheduled", "True"]]);
  expect(await logOutputWhen(logOf(p.metadata.uid, "c"), "hi\n")).toBe("hi\n");
});

test("pods bound in a burst: each pod's first status says Running (no ContainerCreating write while the agent starts the others)", async () => {
  const client = await clientFor(s);
  const names = Array.from({ length: 30 }, (_, i) => `burst-${i}`);
  const first = new Map<string, string>();
  const watch = client.watch(RESOURCES.pods, { namespace: NS });
  const seen = (async () => {
    for await (const ev of watch) {
      const p = ev.object;
      // the agent's writes carry startTime; the creation and the binding do not
      if (names.includes(p.metadata.name) && p.status?.startTime && !first.has(p.metadata.name)) first.set(p.metadata.name, p.status.phase);
      if (first.size === names.length) return;
    }
  })();
  await Promise.all(names.map((n) => runPod(n, [container(["sleep", "60"])], { terminationGracePeriodSeconds: 0 })));
  await until(async () => first.size === names.length || undefined, "every burst pod's first status", 30_000);
  await seen;
  expect([...first.values()]).toEqual(names.map(() => "Running"));
  await Promise.all(names.map((n) => s.call("DELETE", `/api/v1/namespaces/${NS}/pods/${n}`)));
});

test("restartPolicy Never: a container exiting 1 leaves the pod Failed with terminated exitCode 1, reason Error", async () => {
  await runPod("fails", [container(["sh", "-c", "echo bye >&2; exit 1"])], { restartPolicy: "Never" });
  const p = await podWhen("fails", "Failed", (p) => p.status?.phase === "Failed");
  const cs = p.status.containerStatuses[0];
  expect(cs.state.terminated).toMatchObject({ exitCode: 1, reason: "Error" });
  expect(cs.state.terminated.containerID).toBe(cs.containerID);
  expect(cs).toMatchObject({ ready: false, started: false, restartCount: 0 });
  expect(p.status.conditions.find((c: any) => c.type === "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady", message: "containers with unready status: [c]" });
  expect(await logOutputWhen(logOf(p.metadata.uid, "c"), "bye\n")).toBe("bye\n");
});

test("restartPolicy Never: exit 0 is Succeeded, reason Completed", async () => {
  await runPod("done", [container(["true"])], { restartPolicy: "Never" });
  const p = await podWhen("done", "Succeeded", (p) => p.status?.phase === "Succeeded");
  expect(p.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
  expect(p.status.conditions.find((c: any) => c.type === "Ready")).toMatchObject({ status: "False", reason: "PodCompleted" });
});

test("OnFailure: the first restart is immediate, the next early exit waits in CrashLoopBackOff (back-off 10s)", async () => {
  const created = await runPod("crashes", [container(["sh", "-c", "echo run; exit 3"])], { restartPolicy: "OnFailure" });
  const p = await podWhen("crashes", "CrashLoopBackOff", (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CrashLoopBackOff");
  const cs = p.status.containerStatuses[0];
  expect(cs.restartCount).toBe(1);
  expect(cs.lastState.terminated).toMatchObject({ exitCode: 3, reason: "Error" });
  expect(cs.state.waiting.message).toBe(`back-off 10s restarting failed container=c pod=crashes_${NS}(${created.metadata.uid})`);
  // a restarting container counts as stopped, not waiting: the pod is Running
  expect(p.status.phase).toBe("Running");
  // one log file per run
  expect(await logOutputWhen(logOf(created.metadata.uid, "c", 1), "run\n")).toBe("run\n");
});

test("Always: a container that completes is restarted too", async () => {
  await runPod("loops", [container(["sh", "-c", "exit 0"])]);
  const p = await podWhen("loops", "restarted", (p) => p.status?.containerStatuses?.[0]?.restartCount >= 1);
  expect(p.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
  expect(p.status.phase).toBe("Running");
});

test("env (with $(VAR) references) and workingDir reach the process", async () => {
  const created = await runPod("env", [container(["sh", "-c", 'echo "$GREETING from $(pwd)"; echo $(GREETING) \'$$(GREETING)\''], {
    env: [{ name: "WHO", value: "world" }, { name: "GREETING", value: "hello $(WHO)" }], workingDir: work,
  })], { restartPolicy: "Never" });
  await podWhen("env", "Succeeded", (p) => p.status?.phase === "Succeeded");
  const greeting = `hello world from ${work}\nhello world $(GREETING)\n`;
  expect(await logOutputWhen(logOf(created.metadata.uid, "c"), greeting)).toBe(greeting);
});

test("a container without command, or with env from a missing ConfigMap, waits with CreateContainerConfigError and says why", async () => {
  await runPod("nocmd", [{ name: "c", image: "nginx:1.21" }, container(["sleep", "30"], { name: "d", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "absent", key: "k" } } }] })]);
  const p = await podWhen("nocmd", "both waiting", (p) => p.status?.containerStatuses?.every((c: any) => c.state.waiting?.reason === "CreateContainerConfigError"));
  const [c, d] = p.status.containerStatuses;
  expect(c.state.waiting.message).toContain(`container "c" has no command`);
  expect(c.state.waiting.message).toContain(`image "nginx:1.21"`);
  expect(d.state.waiting.message).toBe(`configmap "absent" not found`);
  expect(p.status.phase).toBe("Pending");
});

test("deleting a pod stops every process of it (SIGKILL after the grace period), then the agent deletes the pod", async () => {
  // the shell ignores SIGTERM: only the SIGKILL after the 1 s grace period ends it
  const created = await runPod("stops", [container(["sh", "-c", "trap '' TERM; sleep 30 & wait; wait"])], { terminationGracePeriodSeconds: 1 });
  await podWhen("stops", "Running", (p) => p.status?.phase === "Running");
  const pids = await until(async () => { const p = containerPids(agent.rootDir, created.metadata.uid, "c"); return p.length === 2 ? p : undefined; }, "the shell and its sleep");
  expect(pids.every(alive)).toBe(true);
  const t0 = Date.now();
  await ok(s, "DELETE", `/api/v1/namespaces/${NS}/pods/stops`);
  await until(async () => ((await s.call("GET", `/api/v1/namespaces/${NS}/pods/stops`)).status === 404) || undefined, "the pod to be gone", 15_000);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  expect(pids.some(alive)).toBe(false);
  expect(created.metadata.uid).toBeString();
});

test("a static pod from --pod-manifest-path runs and gets its mirror pod; dotfiles are ignored", async () => {
  const name = `web-${agent.name}`;
  const mirror = await podWhen(name, "the mirror pod Running", (p) => p.status?.phase === "Running", 20_000).catch(async (e) => { throw new Error(`${e.message}; agent said: ${agent.output()}`); });
  expect(mirror.metadata.annotations["kubernetes.io/config.mirror"]).toBe(mirror.metadata.annotations["kubernetes.io/config.hash"]);
  expect(mirror.metadata.annotations["kubernetes.io/config.source"]).toBe("file");
  expect(mirror.metadata.labels).toEqual({ tier: "static" });
  const node = await ok(s, "GET", `/api/v1/nodes/${agent.name}`);
  expect(mirror.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: agent.name, uid: node.metadata.uid, controller: true }]);
  expect(mirror.spec.nodeName).toBe(agent.name);
  const hash = mirror.metadata.annotations["kubernetes.io/config.hash"];
  expect(await logOutputWhen(logOf(hash, "server"), "static up\n")).toBe("static up\n");
  const all = await ok(s, "GET", `/api/v1/namespaces/${NS}/pods?fieldSelector=spec.nodeName=${agent.name}`);
  expect(all.items.filter((p: any) => p.metadata.annotations?.["kubernetes.io/config.mirror"]).map((p: any) => p.metadata.name)).toEqual([name]);
  // a deleted mirror pod comes back; the static pod itself keeps running
  await ok(s, "DELETE", `/api/v1/namespaces/${NS}/pods/${name}?gracePeriodSeconds=0`);
  const again = await podWhen(name, "the mirror pod back", (p) => p.metadata.uid !== mirror.metadata.uid, 15_000);
  expect(again.metadata.annotations["kubernetes.io/config.mirror"]).toBe(hash);
  expect(await logOutputWhen(logOf(hash, "server"), "static up\n")).toBe("static up\n");
  // a manifest removed: its pod stops and its mirror pod goes
  rmSync(join(manifests, "web.yaml"));
  await until(async () => (await getPod(name)) === undefined || undefined, "the mirror pod to go", 15_000);
}, 40_000);

test("a stopping agent leaves the processes it started running, as upstream's kubelet (the next agent adopts them)", async () => {
  const created = await runPod("last", [container(["sh", "-c", "sleep 30 & wait"])]);
  const pids = await until(async () => { const p = containerPids(agent.rootDir, created.metadata.uid, "c"); return p.length === 2 ? p : undefined; }, "the shell and its sleep");
  expect(await agent.stopAgent()).toBe(0);
  expect(agent.output()).toContain("leaving");
  expect(pids.every(alive)).toBe(true);
  stopContainers(agent.rootDir);
  await until(async () => !pids.some(alive) || undefined, "the test's cleanup to end them");
});
