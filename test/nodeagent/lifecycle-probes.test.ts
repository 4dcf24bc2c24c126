// Liveness, readiness and startup probes of pods run by a real `kite node-agent`, with real processes:
// exec, httpGet (a `python3 -m http.server` the container starts when the test says) and tcpSocket
// probes failing and recovering, a failed liveness probe restarting the container, a startup probe
// holding liveness back. Every pod starts at once (beforeAll) so their timelines overlap.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, agent: TestNodeAgent, work: string, port: number;
const NS = "default";
const fast = { periodSeconds: 1, failureThreshold: 1 };
// a container's process may be its PID namespace's init, which SIGTERM does not end: the pods a probe
// kills have a short grace period, after which SIGKILL ends them

const sh = (name: string, script: string, extra: Record<string, unknown> = {}) => ({ name, image: "busybox:1.33", command: ["sh", "-c", script], ...extra });
const runPod = (name: string, spec: Record<string, unknown>) =>
  ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: agent.name, ...spec } });
const getPod = async (name: string) => {
  const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`);
  return r.status === 200 ? r.body : undefined;
};
const podWhen = (name: string, what: string, f: (p: any) => boolean, ms = 20_000) =>
  until(async () => { const p = await getPod(name); return p && f(p) ? p : undefined; }, `${name}: ${what}`, ms);
const cond = (p: any, type: string) => p.status.conditions.find((c: any) => c.type === type);
const cs = (p: any, name = "c") => p.status?.containerStatuses?.find((c: any) => c.name === name);

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const p = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return p;
}

const file = (name: string) => join(work, name);

/** Waits until the container has been running for `ms` (pods start together, so this is often past). */
const runningFor = (c: any, ms: number) => Bun.sleep(Math.max(0, Date.parse(c.state.running.startedAt) + ms - Date.now()));

beforeAll(async () => {
  s = await startServer();
  work = tempDir("kite-probes-");
  writeFileSync(file("kill"), "");
  agent = await startNodeAgent(s);
  port = await freePort();
  await Promise.all([
    runPod("exec-ready", { containers: [sh("c", "sleep 60", { readinessProbe: { exec: { command: ["test", "-f", file("ready")] }, ...fast } })] }),
    // the server starts once the test creates the file; one container probes it over HTTP, the other over TCP
    runPod("web", {
      containers: [
        sh("server", `until [ -f ${file("serve")} ]; do sleep 0.1; done; exec python3 -m http.server ${port} --bind 127.0.0.1 --directory ${work}`, {
          ports: [{ name: "http", containerPort: port }],
          readinessProbe: { httpGet: { path: "/", port: "http", httpHeaders: [{ name: "X-Test", value: "1" }] }, ...fast },
        }),
        sh("watcher", "sleep 60", { readinessProbe: { tcpSocket: { port }, ...fast } }),
      ],
    }),
    runPod("liveness", { terminationGracePeriodSeconds: 1, containers: [{ name: "c", image: "busybox:1.33", command: ["sleep", "60"], livenessProbe: { exec: { command: ["test", "-f", file("alive")] }, initialDelaySeconds: 2, ...fast } }] }),
    runPod("startup", {
      terminationGracePeriodSeconds: 1,
      containers: [{
        name: "c", image: "busybox:1.33", command: ["sleep", "60"],
        startupProbe: { exec: { command: ["test", "-f", file("started")] }, periodSeconds: 1, failureThreshold: 60 },
        livenessProbe: { exec: { command: ["test", "!", "-f", file("kill")] }, ...fast },
      }],
    }),
    // true only inside the container's UTS namespace, whose hostname is the pod's name
    runPod("in-ns", { containers: [sh("c", "sleep 60", { readinessProbe: { exec: { command: ["sh", "-c", 'test "`hostname`" = in-ns'] }, ...fast } })] }),
    runPod("never-starts", {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "c", image: "busybox:1.33", command: ["sleep", "60"], startupProbe: { exec: { command: ["false"] }, periodSeconds: 1, failureThreshold: 2 } }],
    }),
  ]);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

test("exec readiness: Running but not ready until the command succeeds; ready again follows it both ways", async () => {
  const p = await podWhen("exec-ready", "Running", (p) => p.status?.phase === "Running");
  expect(cs(p)).toMatchObject({ ready: false, started: true });
  expect(cond(p, "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady", message: "containers with unready status: [c]" });
  expect(cond(p, "ContainersReady")).toMatchObject({ status: "False", reason: "ContainersNotReady" });
  writeFileSync(file("ready"), "");
  const ready = await podWhen("exec-ready", "ready", (p) => cs(p)?.ready === true);
  expect(cond(ready, "Ready")).toMatchObject({ status: "True" });
  expect(cond(ready, "ContainersReady")).toMatchObject({ status: "True" });
  rmSync(file("ready"));
  const unready = await podWhen("exec-ready", "unready again", (p) => cs(p)?.ready === false);
  expect(cond(unready, "Ready").status).toBe("False");
  expect(cs(unready).restartCount).toBe(0);
});

test("httpGet (named port, headers) and tcpSocket readiness fail while nothing listens, and pass once the server is up", async () => {
  const p = await podWhen("web", "Running", (p) => p.status?.phase === "Running");
  // two probe periods with nothing listening: still unready
  await runningFor(cs(p, "watcher"), 3000);
  const before = await getPod("web");
  expect([cs(before, "server").ready, cs(before, "watcher").ready]).toEqual([false, false]);
  expect(cond(before, "Ready").message).toBe("containers with unready status: [server watcher]");
  expect(p.status.phase).toBe("Running");
  writeFileSync(file("serve"), "");
  const up = await podWhen("web", "both ready", (p) => cs(p, "server")?.ready && cs(p, "watcher")?.ready);
  expect(cond(up, "Ready")).toMatchObject({ status: "True" });
});

test("a failed liveness probe kills and restarts the container: restartCount 1, lastState terminated", async () => {
  const p = await podWhen("liveness", "restarted", (p) => cs(p)?.restartCount >= 1);
  const c = cs(p);
  expect(c.lastState.terminated.reason).toBe("Error");
  expect([137, 143]).toContain(c.lastState.terminated.exitCode);
  expect(c.lastState.terminated.containerID).toBeString();
  await until(async () => agent.output().includes("Container c failed liveness probe, will be restarted") || undefined, "the kill in the agent's log");
  // healthy from now on (the new run's first probe comes 2 s after its start): it keeps running
  writeFileSync(file("alive"), "");
  const running = await podWhen("liveness", "running again", (p) => cs(p)?.state?.running);
  const count = cs(running).restartCount;
  await Bun.sleep(2500);
  const later = await getPod("liveness");
  expect(cs(later).restartCount).toBe(count);
  expect(cs(later).state.running).toBeDefined();
});

test("a startup probe holds liveness (and readiness) back: not started, not ready, not restarted until it succeeds", async () => {
  const p = await podWhen("startup", "Running", (p) => cs(p)?.state?.running);
  // the liveness probe (failing while the kill file is there; period 1 s, threshold 1) would have killed it by now
  await runningFor(cs(p), 3500);
  const held = await getPod("startup");
  expect(cs(held)).toMatchObject({ started: false, ready: false, restartCount: 0 });
  expect(cs(held).state.running).toBeDefined();
  rmSync(file("kill"));
  writeFileSync(file("started"), "");
  // started (and, with no readiness probe, ready); then liveness runs, and restarts it once it fails
  await podWhen("startup", "started", (p) => cs(p)?.started === true && cs(p)?.ready === true);
  expect(cs(await getPod("startup")).restartCount).toBe(0);
  writeFileSync(file("kill"), "");
  const restarted = await podWhen("startup", "restarted by liveness", (p) => cs(p)?.restartCount >= 1);
  expect(cs(restarted).lastState.terminated).toBeDefined();
});

test("a startup probe that keeps failing (failureThreshold times) kills and restarts the container", async () => {
  const p = await podWhen("never-starts", "restarted", (p) => cs(p)?.restartCount >= 1);
  expect([137, 143]).toContain(cs(p).lastState.terminated.exitCode);
  expect(cs(p).started).toBe(false);
  await until(async () => agent.output().includes("Container c failed startup probe, will be restarted") || undefined, "the kill in the agent's log");
});

test("an exec probe runs in the container's namespaces (where it has its own): it sees the pod's hostname", async () => {
  const p = await podWhen("in-ns", "ready", (p) => cs(p)?.ready === true);
  expect(cs(p).restartCount).toBe(0);
});
