// Init containers, lifecycle hooks, the graceful stop order and termination messages of pods run by a
// real `kite node-agent`, with real processes: what a user sees in the pod's status and the files the
// containers write.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { logFile, logOutputWhen, startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, agent: TestNodeAgent, work: string;
const NS = "default";

beforeAll(async () => {
  s = await startServer();
  work = tempDir("kite-lifecycle-");
  agent = await startNodeAgent(s);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

const sh = (name: string, script: string, extra: Record<string, unknown> = {}) => ({ name, image: "busybox:1.33", command: ["sh", "-c", script], ...extra });
const runPod = (name: string, spec: Record<string, unknown>) =>
  ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: agent.name, ...spec } });
const getPod = async (name: string) => {
  const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`);
  return r.status === 200 ? r.body : undefined;
};
const podWhen = (name: string, what: string, f: (p: any) => boolean, ms = 20_000) =>
  until(async () => { const p = await getPod(name); return p && f(p) ? p : undefined; }, `${name}: ${what}`, ms);
const read = (f: string) => (existsSync(f) ? readFileSync(f, "utf8") : "");
const cond = (p: any, type: string) => p.status.conditions.find((c: any) => c.type === type);

test("init containers run in order, each to completion, before the app, which sees what they did", async () => {
  const f = join(work, "init-order");
  const created = await runPod("init", {
    initContainers: [sh("first", `sleep 1; echo first >> ${f}`), sh("second", `echo second >> ${f}`)],
    containers: [sh("app", `cat ${f}; sleep 30`)],
  });
  // while the first runs: Pending, everything after it waits with PodInitializing
  const early = await podWhen("init", "first running", (p) => p.status?.initContainerStatuses?.[0]?.state?.running);
  expect(early.status.phase).toBe("Pending");
  expect(early.status.initContainerStatuses[1].state).toEqual({ waiting: { reason: "PodInitializing" } });
  expect(early.status.containerStatuses[0]).toMatchObject({ state: { waiting: { reason: "PodInitializing" } }, ready: false, started: false });
  expect(cond(early, "Initialized")).toMatchObject({ status: "False", reason: "ContainersNotInitialized", message: "containers with incomplete status: [first second]" });
  const p = await podWhen("init", "Running", (p) => p.status?.phase === "Running");
  for (const st of p.status.initContainerStatuses) {
    expect(st.state.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
    expect(st).toMatchObject({ ready: true, restartCount: 0 });
    expect(st.started).toBeUndefined();
  }
  expect(p.status.initContainerStatuses.map((c: any) => c.name)).toEqual(["first", "second"]);
  expect(Date.parse(p.status.initContainerStatuses[1].state.terminated.startedAt)).toBeGreaterThanOrEqual(Date.parse(p.status.initContainerStatuses[0].state.terminated.finishedAt) - 1000);
  expect(cond(p, "Initialized")).toMatchObject({ status: "True" });
  expect(cond(p, "Initialized").reason).toBeUndefined();
  expect(await logOutputWhen(logFile(agent, created.metadata.uid, "app"), "first\nsecond\n")).toBe("first\nsecond\n");
});

test("a failed init container with restartPolicy Never fails the pod; the next ones never run", async () => {
  const f = join(work, "never-second");
  await runPod("init-never", {
    restartPolicy: "Never",
    initContainers: [sh("bad", "echo nope >&2; exit 3"), sh("next", `touch ${f}`)],
    containers: [sh("app", "sleep 30")],
  });
  const p = await podWhen("init-never", "Failed", (p) => p.status?.phase === "Failed");
  const [bad, next] = p.status.initContainerStatuses;
  expect(bad.state.terminated).toMatchObject({ exitCode: 3, reason: "Error" });
  expect(bad).toMatchObject({ ready: false, restartCount: 0 });
  expect(next.state).toEqual({ waiting: { reason: "PodInitializing" } });
  expect(p.status.containerStatuses[0].state).toEqual({ waiting: { reason: "PodInitializing" } });
  expect(cond(p, "Initialized")).toMatchObject({ status: "False", reason: "ContainersNotInitialized", message: "containers with incomplete status: [bad next]" });
  expect(existsSync(f)).toBe(false);
});

test("a failed init container is retried under OnFailure (restartCount, lastState), then the app starts", async () => {
  const marker = join(work, "flaky-once");
  await runPod("init-retry", {
    restartPolicy: "OnFailure",
    initContainers: [sh("flaky", `[ -f ${marker} ] || { touch ${marker}; exit 5; }`)],
    containers: [sh("app", "sleep 30")],
  });
  const p = await podWhen("init-retry", "Running", (p) => p.status?.phase === "Running");
  const flaky = p.status.initContainerStatuses[0];
  expect(flaky).toMatchObject({ restartCount: 1, ready: true });
  expect(flaky.lastState.terminated).toMatchObject({ exitCode: 5, reason: "Error" });
  expect(flaky.state.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
});

test("postStart runs right after the start; the container is reported running only once it is done", async () => {
  const f = join(work, "hooked");
  const created = await runPod("poststart", {
    containers: [sh("c", `until [ -f ${f} ]; do sleep 0.1; done; cat ${f}; sleep 30`, {
      lifecycle: { postStart: { exec: { command: ["sh", "-c", `sleep 1; echo "hooked $GREETING" > ${f}`] } } },
      env: [{ name: "GREETING", value: "hello" }],
    })],
  });
  await podWhen("poststart", "Running", (p) => p.status?.containerStatuses?.[0]?.state?.running);
  expect(read(f)).toBe("hooked hello\n");
  expect(await logOutputWhen(logFile(agent, created.metadata.uid, "c"), "hooked hello\n")).toBe("hooked hello\n");
});

test("a failing postStart kills the container (FailedPostStartHook with upstream's message); Never leaves the pod Failed", async () => {
  const created = await runPod("poststart-fails", {
    restartPolicy: "Never",
    terminationGracePeriodSeconds: 1,
    containers: [sh("c", "sleep 30", { lifecycle: { postStart: { exec: { command: ["sh", "-c", "echo broken; exit 7"] } } } })],
  });
  const p = await podWhen("poststart-fails", "Failed", (p) => p.status?.phase === "Failed");
  const c = p.status.containerStatuses[0];
  expect([137, 143]).toContain(c.state.terminated.exitCode);
  expect(c.state.terminated.reason).toBe("Error");
  expect(c).toMatchObject({ ready: false, started: false, restartCount: 0 });
  const m = created.metadata;
  await until(async () => agent.output().includes(`Exec lifecycle hook ([sh -c echo broken; exit 7]) for Container "c" in Pod "poststart-fails_${NS}(${m.uid})" failed - error: command 'sh -c echo broken; exit 7' exited with 7: , message: "broken\\n"`) || undefined, "the hook's failure in the agent's log");
});

test("graceful stop: preStop runs first, then SIGTERM; a preStop outlasting the grace period is cut short by it", async () => {
  const f = join(work, "stop-order"), g = join(work, "stop-slow");
  const trapping = (file: string) => `trap 'echo TERM >> ${file}; exit 0' TERM; echo start >> ${file}; while true; do sleep 0.1; done`;
  await runPod("prestop", {
    terminationGracePeriodSeconds: 20,
    containers: [sh("c", trapping(f), { lifecycle: { preStop: { exec: { command: ["sh", "-c", `sleep 0.5; echo preStop >> ${f}`] } } } })],
  });
  await runPod("prestop-slow", {
    terminationGracePeriodSeconds: 1,
    containers: [sh("c", trapping(g), { lifecycle: { preStop: { exec: { command: ["sh", "-c", `echo preStop >> ${g}; sleep 30; echo never >> ${g}`] } } } })],
  });
  await until(async () => (read(f) === "start\n" && read(g) === "start\n") || undefined, "both to start");
  await podWhen("prestop-slow", "Running", (p) => p.status?.phase === "Running");
  const t0 = Date.now();
  await ok(s, "DELETE", `/api/v1/namespaces/${NS}/pods/prestop`);
  await ok(s, "DELETE", `/api/v1/namespaces/${NS}/pods/prestop-slow`);
  await until(async () => (!(await getPod("prestop")) && !(await getPod("prestop-slow"))) || undefined, "both pods to go", 20_000);
  expect(read(f)).toBe("start\npreStop\nTERM\n");
  expect(read(g)).toBe("start\npreStop\nTERM\n");
  expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
});

test("termination messages: the file the container wrote; FallbackToLogsOnError takes the log's tail on failure only", async () => {
  const lines = "i=0; while [ $i -lt 100 ]; do echo line $i; i=$((i+1)); done";
  await runPod("tmsg", {
    restartPolicy: "Never",
    containers: [
      sh("file", 'echo "all done" > "$KITE_TERMINATION_MESSAGE_PATH"; exit 0', { terminationMessagePolicy: "FallbackToLogsOnError" }),
      sh("logs", `${lines}; exit 2`, { terminationMessagePolicy: "FallbackToLogsOnError" }),
      sh("quiet", `${lines}; exit 2`),
      sh("ok", `${lines}`, { terminationMessagePolicy: "FallbackToLogsOnError" }),
    ],
  });
  const p = await podWhen("tmsg", "Failed", (p) => p.status?.phase === "Failed");
  const byName = Object.fromEntries(p.status.containerStatuses.map((c: any) => [c.name, c.state.terminated]));
  // upstream's order: containerStatuses by name
  expect(p.status.containerStatuses.map((c: any) => c.name)).toEqual(["file", "logs", "ok", "quiet"]);
  expect(byName.file.message).toBe("all done\n");
  expect(byName.logs.message).toBe(Array.from({ length: 80 }, (_, i) => `line ${i + 20}\n`).join(""));
  expect(byName.quiet.message).toBeUndefined();
  expect(byName.ok.message).toBeUndefined();
});
