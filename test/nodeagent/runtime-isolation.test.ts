// The process runtime's isolation, through its API (volumes come from another part; ProcessSpec.mounts is
// built here): as root each container has its own PID, mount, UTS and IPC namespaces with its mounts
// bound at their paths (read-only where asked), its cgroups carry the cpu quota and the pod's pids.max;
// a recorded pid whose start time no longer matches is never signalled; a container enters the network
// namespace it is given; without namespaces a container with mounts is refused.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ContainerProcess, ProcessSpec } from "../../pkg/nodeagent/runtime/process.ts";
import { readPid, runPrefix } from "../../pkg/nodeagent/runtime/records.ts";
import { ProcessRuntime } from "../../pkg/nodeagent/runtime/runtime.ts";
import { alive, logOutputWhen, stopContainers } from "../helpers/nodeagent.ts";
import { tempDir, track } from "../helpers/processes.ts";
import { until } from "../helpers/scheduler.ts";

const root = tempDir("kite-runtime-");
const rt = new ProcessRuntime({ rootDir: root, podMaxPids: 8 });
const isolated = !!rt.sandbox.unshare;
const limited = typeof rt.cgroups !== "string";
const why = (ok: boolean, reason: string) => (ok ? "" : ` (skipped: ${reason})`);
afterAll(() => stopContainers(root));

let seq = 0;
/** Starts `sh -c script` as container "c" of a new pod; resolves to its process and its output (once `done` holds of it). */
async function run(script: string, extra: Partial<ProcessSpec> = {}): Promise<{ uid: string; proc: ContainerProcess; log: (done?: string | ((t: string) => boolean)) => Promise<string> }> {
  const uid = `u${process.pid}-${seq++}`;
  const logPath = join(root, "pods", uid, "containers", "c", "0.log");
  const { proc } = await rt.start(uid, "c", { argv: ["sh", "-c", script], env: { PATH: "/usr/bin:/bin" }, workingDir: "/", logPath, mounts: [], ...extra }, { restartCount: 0, lastState: {}, graceSeconds: 1 });
  return { uid, proc, log: (done) => logOutputWhen(logPath, done) };
}

test(`a container has its own PID namespace (it is pid 1 and sees only its processes), UTS hostname and /dev/shm${why(isolated, "needs root and unshare")}`, async () => {
  if (!isolated) return;
  const shm = `kite-test-${process.pid}`;
  const c = await run(`echo pid=$$; echo /proc/[0-9]*; hostname; cat /proc/sys/kernel/hostname; echo x > /dev/shm/${shm}`, { hostname: "web-0" });
  expect((await c.proc.exited).exitCode).toBe(0);
  // its shell (expanding the glob itself) is the only process it sees
  expect(await c.log("pid=1\n/proc/1\nweb-0\nweb-0\n")).toBe("pid=1\n/proc/1\nweb-0\nweb-0\n");
  // and its /dev/shm is its own
  expect(existsSync(`/dev/shm/${shm}`)).toBe(false);
  // mount, UTS and IPC namespaces are not the host's
  const ns = await run("for n in mnt uts ipc pid; do readlink /proc/self/ns/$n; done");
  expect((await ns.proc.exited).exitCode).toBe(0);
  const mine = ["mnt", "uts", "ipc", "pid"].map((n) => readlinkSync(`/proc/self/ns/${n}`));
  const theirs = (await ns.log((t) => t.trim().split("\n").length === 4)).trim().split("\n");
  expect(theirs).toHaveLength(4);
  theirs.forEach((l, i) => expect(l).not.toBe(mine[i]));
  rt.forget(ns.uid);
  rt.forget(c.uid);
});

test(`mounts are bound at their containerPath (created if missing), read-only where asked${why(isolated, "needs root and unshare")}`, async () => {
  if (!isolated) return;
  const src = tempDir("kite-vol-"), rw = tempDir("kite-vol-"), at = tempDir("kite-mnt-");
  writeFileSync(join(src, "config.txt"), "from the volume\n");
  writeFileSync(join(src, "single"), "one file\n");
  const mounts = [
    { hostPath: src, containerPath: join(at, "etc", "app"), readOnly: true },
    { hostPath: rw, containerPath: join(at, "data"), readOnly: false },
    { hostPath: join(src, "single"), containerPath: join(at, "files", "one"), readOnly: true },
  ];
  const c = await run(`cd ${at}; cat etc/app/config.txt files/one; echo x > etc/app/new || echo refused; echo written > data/out`, { mounts });
  expect((await c.proc.exited).exitCode).toBe(0);
  // stdout and stderr are two streams: their lines' order between them is not kept
  const log = await c.log((t) => t.includes("refused\n") && t.includes("Read-only file system"));
  expect(log).toContain("from the volume\none file\n");
  expect(log).toContain("Read-only file system");
  expect(log).toContain("refused\n");
  expect(readFileSync(join(rw, "out"), "utf8")).toBe("written\n");
  // the host's view of the mount points is unchanged: bound only in the container's mount namespace
  expect(() => readFileSync(join(at, "etc", "app", "config.txt"))).toThrow();
  // the container's own PATH (here without mount or mkdir) is the command's, not the setup's
  const p = await run("", { argv: ["/bin/sh", "-c", `echo $PATH; /bin/cat ${at}/etc/app/config.txt`], env: { PATH: "/nowhere" }, mounts });
  expect((await p.proc.exited).exitCode).toBe(0);
  expect(await p.log("/nowhere\nfrom the volume\n")).toBe("/nowhere\nfrom the volume\n");
  // a mount that cannot be made stops the start: containerd's StartError, with the reason
  const bad = await run("echo never", { mounts: [{ hostPath: join(src, "missing"), containerPath: join(at, "x"), readOnly: false }] });
  const e = await bad.proc.exited;
  expect(e).toMatchObject({ exitCode: 128, startError: `cannot mount ${join(src, "missing")} at ${join(at, "x")}` });
  expect(await bad.log((t) => t.includes("cannot mount"))).not.toContain("never");
  rt.forget(c.uid);
  rt.forget(p.uid);
  rt.forget(bad.uid);
});

test(`a container enters ProcessSpec.netns when set${why(isolated, "needs root and unshare")}`, async () => {
  if (!isolated) return;
  // a network namespace of the test's own: only a loopback, and nothing leaves it
  const holder = Bun.spawn(["unshare", "--net", "sleep", "30"], { stdio: ["ignore", "ignore", "ignore"] });
  track(holder);
  const netns = `/proc/${holder.pid}/ns/net`;
  const holderNs = await until(async () => { const l = readlinkSync(netns); return l !== readlinkSync("/proc/self/ns/net") ? l : undefined; }, "the test's network namespace");
  const c = await run("readlink /proc/self/ns/net", { netns });
  expect((await c.proc.exited).exitCode).toBe(0);
  expect(await c.log(`${holderNs}\n`)).toBe(`${holderNs}\n`);
  holder.kill();
  rt.forget(c.uid);
});

/** The value of a cgroup file of `pid`'s cgroup for a controller (v1) or its unified cgroup (v2). */
function cgroupFile(pid: number, controller: string, file: string, up = 0): string {
  const lines = readFileSync(`/proc/${pid}/cgroup`, "utf8").trim().split("\n").map((l) => l.split(":"));
  const v1 = lines.find(([, c]) => c.split(",").includes(controller));
  const path = v1 ? join("/sys/fs/cgroup", controller, v1[2]) : join("/sys/fs/cgroup", lines.find(([, c]) => c === "")![2]);
  return readFileSync(join(path, ...Array(up).fill(".."), file), "utf8").trim();
}

test(`cgroups: a cpu limit is a CFS quota over 100 ms, the pod's pids.max caps its processes${why(limited, String(rt.cgroups))}`, async () => {
  if (!limited) return;
  const c = await run("sleep 30", { limits: { cpuMilli: 250, memoryBytes: 64 * 2 ** 20 } });
  const pid = await waitForPid(c.uid);
  const v2 = !readFileSync(`/proc/${pid}/cgroup`, "utf8").includes(":cpu");
  if (v2) {
    expect(cgroupFile(pid, "cpu", "cpu.max")).toBe("25000 100000");
    expect(cgroupFile(pid, "memory", "memory.max")).toBe(String(64 * 2 ** 20));
  } else {
    expect(cgroupFile(pid, "cpu", "cpu.cfs_quota_us")).toBe("25000");
    expect(cgroupFile(pid, "cpu", "cpu.cfs_period_us")).toBe("100000");
    expect(cgroupFile(pid, "memory", "memory.limit_in_bytes")).toBe(String(64 * 2 ** 20));
  }
  // pids.max is the pod's (the container's cgroup is below it)
  expect(cgroupFile(pid, "pids", "pids.max", 1)).toBe("8");
  c.proc.signal("SIGKILL");
  expect((await c.proc.exited).exitCode).toBe(137);
  // the pod's 8 processes run out: forks fail
  const f = await run("for i in 1 2 3 4 5 6 7 8 9 10; do sleep 5 & done; wait");
  await f.proc.exited;
  expect(await f.log((t) => t.includes("fork"))).toContain("fork");
  rt.forget(c.uid);
  rt.forget(f.uid);
}, 20_000);

async function waitForPid(uid: string): Promise<number> {
  const dir = join(root, "pods", uid, "containers", "c");
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = JSON.parse(readFileSync(join(dir, "record.json"), "utf8"));
    const p = readPid(runPrefix(dir, r.containerID));
    if (p) return p.pid;
    if (Date.now() > deadline) throw new Error("no pid recorded");
    await Bun.sleep(10);
  }
}

test("a recorded process whose start time no longer matches (a recycled pid) is never signalled", async () => {
  const c = await run("sleep 30");
  const pid = await waitForPid(c.uid);
  const dir = join(root, "pods", c.uid, "containers", "c");
  const r = JSON.parse(readFileSync(join(dir, "record.json"), "utf8"));
  const pidFile = `${runPrefix(dir, r.containerID)}.pid`;
  const [, start, shimPid, shimStart] = readFileSync(pidFile, "utf8").trim().split(" ");
  // as if the record were stale (say from before a reboot) and both pids had been reused since
  writeFileSync(pidFile, `${pid} ${Number(start) + 1} ${shimPid} ${Number(shimStart) + 1}\n`);
  try {
    await rt.stopRecorded(c.uid, 100);
    expect(alive(pid)).toBe(true);
    expect(alive(Number(shimPid))).toBe(true);
  } finally {
    // the test's own cleanup: the record no longer names them
    process.kill(-pid, "SIGKILL");
    while (alive(pid)) await Bun.sleep(10);
    rt.forget(c.uid);
  }
});

test("without namespaces a container that mounts volumes is refused with a reason; one without runs as a process group", async () => {
  const plain = new ProcessRuntime({ rootDir: root, podMaxPids: -1 }, { ...rt.sandbox, unshare: undefined, nsenter: undefined, mode: "plain" }, "cgroups are not writable: test");
  const spec: ProcessSpec = { argv: ["true"], env: {}, workingDir: "/", logPath: join(root, "x.log"), mounts: [{ hostPath: "/tmp", containerPath: "/data", readOnly: false }] };
  expect(plain.refuse("c", spec)).toBe(`container "c" mounts volumes, which need mount namespaces: the agent must run as root on Linux`);
  expect(plain.refuse("c", { ...spec, mounts: [] })).toBeUndefined();
  expect(plain.limitsProblem).toBe("resource limits are not enforced: cgroups are not writable: test");
  mkdirSync(join(root, "plain"), { recursive: true });
  const { proc } = await plain.start("plain-pod", "c", { ...spec, argv: ["sh", "-c", "echo $$"], mounts: [], logPath: join(root, "plain", "0.log") }, { restartCount: 0, lastState: {}, graceSeconds: 1 });
  expect((await proc.exited).exitCode).toBe(0);
  // not pid 1: the host's PID namespace
  expect(Number(await logOutputWhen(join(root, "plain", "0.log")))).toBeGreaterThan(1);
});
