// A node agent killed with SIGKILL and started again on the same --root-dir adopts what the first one ran:
// the same processes keep running (no second start) with the same status; a container that ended while
// no agent watched is handled by its restartPolicy; what belongs to pods no longer bound here is stopped;
// a record whose process was recycled is left alone. And the memory limit: a container past it is
// OOMKilled.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Cgroups } from "../../pkg/nodeagent/runtime/cgroups.ts";
import { procStart } from "../../pkg/nodeagent/runtime/records.ts";
import { alive, containerPids, startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir, track } from "../helpers/processes.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, agent: TestNodeAgent, work: string;
const cgroups = typeof Cgroups.open(-1) !== "string";
const root = process.getuid?.() === 0;
const NS = "default";

beforeAll(async () => {
  s = await startServer();
  work = tempDir("kite-adopt-");
  agent = await startNodeAgent(s);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

const runPod = (name: string, script: string, spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}) =>
  ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: agent.name, terminationGracePeriodSeconds: 1, containers: [{ name: "c", image: "busybox", command: ["sh", "-c", script], ...container }], ...spec } });
const getPod = async (name: string) => {
  const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`);
  return r.status === 200 ? r.body : undefined;
};
const podWhen = (name: string, what: string, f: (p: any) => boolean, ms = 20_000) =>
  until(async () => { const p = await getPod(name); return p && f(p) ? p : undefined; }, `${name}: ${what}`, ms).catch((e) => { throw new Error(`${e.message}; agent said: ${agent.output()}`); });
const running = (p: any) => p.status?.containerStatuses?.[0]?.state?.running;
const leader = (uid: string) => until(async () => containerPids(agent.rootDir, uid, "c")[0], "the container's pid");

test("after kill -9 the next agent adopts: same process, no second start, same status; ended runs follow restartPolicy; orphans stop; recycled pids are spared", async () => {
  const starts = join(work, "starts"), go = join(work, "go");
  // each start of the container appends a line: a second start would show
  // (as root) with a memory-backed volume mounted: the restarted agent keeps it, the container still writes to it
  const scratch = join(work, "scratch");
  const adopt = root
    ? await runPod("adopt", `echo started >> ${starts}; echo before > ${scratch}/f; sleep 300`, { volumes: [{ name: "v", emptyDir: { medium: "Memory" } }] }, { volumeMounts: [{ name: "v", mountPath: scratch }] })
    : await runPod("adopt", `echo started >> ${starts}; sleep 300`);
  const never = await runPod("never", `while [ ! -e ${go} ]; do sleep 0.1; done; exit 3`, { restartPolicy: "Never" });
  // its second run stays up
  const onFailure = await runPod("onfailure", `[ -e ${go}.seen ] && exec sleep 300; while [ ! -e ${go} ]; do sleep 0.1; done; touch ${go}.seen; exit 4`, { restartPolicy: "OnFailure" });
  const orphan = await runPod("orphan", "sleep 300");
  const before = new Map<string, any>();
  for (const name of ["adopt", "never", "onfailure", "orphan"]) before.set(name, (await podWhen(name, "Running", running)).status.containerStatuses[0]);
  const [adoptPid, orphanPid] = [await leader(adopt.metadata.uid), await leader(orphan.metadata.uid)];

  agent.proc.kill("SIGKILL");
  await agent.proc.exited;
  expect(alive(adoptPid)).toBe(true);
  // while no agent runs: two containers end, one pod is removed from the API
  writeFileSync(go, "");
  const exitFile = (uid: string) => until(async () => readdirSync(join(agent.rootDir, "pods", uid, "containers", "c")).some((f) => f.endsWith(".exit")) || undefined, "the exit recorded by the shim");
  await exitFile(never.metadata.uid);
  await exitFile(onFailure.metadata.uid);
  await ok(s, "DELETE", `/api/v1/namespaces/${NS}/pods/orphan?gracePeriodSeconds=0`);
  // a stale record for a pod gone from this node, naming a process this agent did not start
  const stranger = Bun.spawn(["sleep", "60"], { stdio: ["ignore", "ignore", "ignore"] });
  track(stranger);
  const fake = join(agent.rootDir, "pods", "gone-uid", "containers", "c"), id = "f".repeat(64);
  mkdirSync(fake, { recursive: true });
  writeFileSync(join(fake, "record.json"), JSON.stringify({ containerID: `kite-process://${id}`, restartCount: 0, startedAt: new Date().toISOString(), lastState: {}, graceSeconds: 1, cgroups: [] }));
  writeFileSync(join(fake, `${id}.pid`), `${stranger.pid} ${Number(procStart(stranger.pid)) - 5} ${stranger.pid} ${Number(procStart(stranger.pid)) - 5}\n`);

  agent = await startNodeAgent(s, [], agent.name, agent.rootDir);
  const failed = await podWhen("never", "Failed", (p) => p.status?.phase === "Failed");
  expect(failed.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 3, reason: "Error", startedAt: before.get("never").state.running.startedAt, containerID: before.get("never").containerID });
  const restarted = await podWhen("onfailure", "restarted", (p) => p.status?.containerStatuses?.[0]?.restartCount === 1 && running(p));
  expect(restarted.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 4, reason: "Error", containerID: before.get("onfailure").containerID });
  expect(restarted.status.containerStatuses[0].containerID).not.toBe(before.get("onfailure").containerID);
  // the orphan's process is stopped; the stranger is not signalled
  await until(async () => !alive(orphanPid) || undefined, "the orphan's process to stop");
  expect(alive(stranger.pid)).toBe(true);
  expect(existsSync(join(agent.rootDir, "pods", "gone-uid"))).toBe(false);
  // adopted: the same process, started once, with the status it had
  const adopted = (await podWhen("adopt", "Running", running)).status.containerStatuses[0];
  expect(adopted).toEqual(before.get("adopt"));
  expect(containerPids(agent.rootDir, adopt.metadata.uid, "c")[0]).toBe(adoptPid);
  expect(readFileSync(starts, "utf8")).toBe("started\n");
  if (root) expect(readFileSync(join(agent.rootDir, "pods", adopt.metadata.uid, "volumes/kubernetes.io~empty-dir/v/f"), "utf8")).toBe("before\n");

  // and supervised: its end is noticed and restartPolicy Always starts it again
  process.kill(-adoptPid, "SIGKILL");
  const again = await podWhen("adopt", "restarted", (p) => p.status?.containerStatuses?.[0]?.restartCount === 1 && running(p));
  expect(again.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 137, reason: "Error", startedAt: before.get("adopt").state.running.startedAt });
  await until(async () => readFileSync(starts, "utf8") === "started\nstarted\n" || undefined, "the second start");
  stranger.kill();
}, 60_000);

test.skipIf(!cgroups)(`a container past its memory limit is OOMKilled (exit 137) in the pod's status${cgroups ? "" : " (skipped: cgroups are not writable here)"}`, async () => {
  const p = await runPod("oom", "python3 -c 'b = bytearray(200 * 1024 * 1024)'", { restartPolicy: "Never" }, { resources: { limits: { memory: "20Mi" } } });
  const failed = await podWhen("oom", "Failed", (x) => x.status?.phase === "Failed");
  expect(failed.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 137, reason: "OOMKilled" });
  expect(p.metadata.uid).toBeString();
});

test("the agent says once which mode its process runtime runs in", () => {
  const lines = agent.output().split("\n");
  expect(lines.filter((l) => /process runtime: containers run (in their own mount, PID, UTS and IPC namespaces|as plain process groups)/.test(l))).toHaveLength(1);
  expect(lines.filter((l) => /process runtime: (resource limits through cgroup v[12]|running without resource limits)/.test(l))).toHaveLength(1);
});
