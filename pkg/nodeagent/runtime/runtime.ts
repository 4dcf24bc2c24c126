// The process runtime as the agent uses it: start a container run through its shim (in namespaces and
// cgroups where it may), find the runs a previous agent left (adoption), stop the recorded runs of pods
// that are no longer this node's, and forget a pod once its processes are gone.
//
// A stopping agent leaves its containers running, as upstream's kubelet does: their shims outlive it
// and the next agent on the same --root-dir adopts them.
import { randomBytes } from "node:crypto";
import { readdirSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Cgroups } from "./cgroups.ts";
import { ptyCommand } from "./pty.ts";
import { ContainerProcess, DEFAULT_PATH, type ProcessSpec } from "./process.ts";
import { containerDir, podDir, podRecords, readExit, readPid, readRecord, removeRun, runPrefix, writeRecord, type ContainerRecord } from "./records.ts";
import { detectSandbox, refusal, type Sandbox } from "./sandbox.ts";
import { logRotation, mkfifo } from "./output.ts";
import { ContainerStdin } from "./stdin.ts";
import { Prober } from "./prober.ts";
import { Spawner } from "./spawner.ts";
import { shimArgs } from "./shim.ts";
import { RUNTIME_SCHEME } from "../node.ts";

export interface RuntimeOptions { rootDir: string; podMaxPids: number }

/** A recorded run found again: its record and its process (ended or not; none if its shim never started it). */
export interface Resumed { record: ContainerRecord; proc?: ContainerProcess }

export class ProcessRuntime {
  readonly sandbox: Sandbox;
  /** The cgroups it creates, or why it cannot (the Node's Ready condition and the log say so). */
  readonly cgroups: Cgroups | string;
  /** Runs exec probes and hooks in containers' namespaces, where containers have their own. */
  readonly prober?: Prober;
  /** Starts the containers' shims off the event loop. */
  private readonly spawner: Spawner;

  constructor(private readonly o: RuntimeOptions, sandbox = detectSandbox(), cgroups: Cgroups | string = Cgroups.open(o.podMaxPids)) {
    this.sandbox = sandbox;
    this.cgroups = cgroups;
    if (sandbox.unshare) this.prober = new Prober(sandbox.perl);
    this.spawner = new Spawner(sandbox.perl);
  }

  /** A stopping agent: its probe helper and spawner end (the containers keep running). */
  close(): void {
    this.prober?.close();
    this.spawner.close();
  }

  /** What the agent logs once at start. */
  describe(): string[] {
    const limits = typeof this.cgroups === "string"
      ? `running without resource limits: ${this.cgroups}`
      : `resource limits through cgroup ${this.cgroups.v2 ? "v2" : "v1"}`;
    return [`process runtime: ${this.sandbox.mode}`, `process runtime: ${limits}`];
  }

  /** A message for the Node's conditions when limits cannot be enforced. */
  get limitsProblem(): string | undefined {
    return typeof this.cgroups === "string" ? `resource limits are not enforced: ${this.cgroups}` : undefined;
  }

  /** Why `spec` cannot run here (a CreateContainerConfigError message), if it cannot. */
  refuse(container: string, spec: ProcessSpec): string | undefined {
    return refusal(this.sandbox, container, spec.mounts.length);
  }

  /**
   * Starts one run of a container: its cgroups, its record (so a later agent finds it), then its shim.
   * Throws (containerd's StartError) when its executable cannot be found or its cgroups cannot be made.
   */
  async start(uid: string, name: string, spec: ProcessSpec, r: Omit<ContainerRecord, "containerID" | "startedAt" | "cgroups">): Promise<{ proc: ContainerProcess; record: ContainerRecord }> {
    const [cmd] = spec.argv;
    if (!cmd.includes("/") && !Bun.which(cmd, { PATH: spec.env.PATH ?? DEFAULT_PATH })) throw new Error(`exec: "${cmd}": executable file not found in $PATH`);
    const dir = containerDir(this.o.rootDir, uid, name);
    const hex = randomBytes(32).toString("hex");
    const cgroups = typeof this.cgroups === "string" ? [] : await this.cgroups.createRun(uid, hex, spec.limits ?? {});
    const startedAt = new Date();
    const record: ContainerRecord = { ...r, containerID: `${RUNTIME_SCHEME}://${hex}`, startedAt: startedAt.toISOString(), cgroups, ...(spec.stdin ? { stdin: spec.stdin } : {}) };
    const previous = readRecord(dir);
    await writeRecord(dir, record);
    if (previous) this.endRun(dir, previous);
    const prefix = runPrefix(dir, record.containerID);
    const ns = !!this.sandbox.unshare;
    const { maxBytes, maxFiles } = logRotation();
    const args = shimArgs({
      prefix, workingDir: spec.workingDir, argv: spec.tty ? ptyCommand(spec.argv) : spec.argv, env: spec.env, mounts: spec.mounts, netns: ns ? spec.netns : undefined,
      hostname: ns ? spec.hostname : undefined, namespaces: ns, cgroups, stdin: spec.stdin, logPath: spec.logPath, maxBytes, maxFiles,
    });
    let stdin: ContainerStdin | undefined;
    if (spec.stdin) {
      mkfifo(`${prefix}.stdin`);
      stdin = new ContainerStdin(`${prefix}.stdin`, spec.stdin);
    }
    const reaped = this.spawner.start(args, stdin ? `${prefix}.stdin` : undefined);
    return { proc: new ContainerProcess(record.containerID, prefix, startedAt, reaped, stdin), record };
  }

  /** The files and cgroups of a finished run go; its record's successor keeps what the status needs. */
  private endRun(dir: string, r: ContainerRecord): void {
    removeRun(runPrefix(dir, r.containerID));
    Cgroups.removeRun(r.cgroups);
  }

  /**
   * The run a previous agent recorded for this container, running or ended (without a process when its
   * shim never got to start it: it is then started again), or undefined when there is none.
   */
  async resume(uid: string, name: string): Promise<Resumed | undefined> {
    const dir = containerDir(this.o.rootDir, uid, name);
    const record = readRecord(dir);
    if (!record) return undefined;
    const prefix = runPrefix(dir, record.containerID);
    // a shim started just before the last agent died may not have written its record yet
    for (let i = 0; i < 20 && !readPid(prefix) && !readExit(prefix); i++) await Bun.sleep(50);
    if (!readPid(prefix) && !readExit(prefix)) return { record };
    const stdin = readExit(prefix) ? undefined : ContainerStdin.reopen(`${prefix}.stdin`, record.stdin);
    return { record, proc: new ContainerProcess(record.containerID, prefix, new Date(record.startedAt), undefined, stdin) };
  }

  /** Removes the run's cgroups once it has ended (the shim cannot: its PID namespace is gone). */
  ended(r: ContainerRecord): void {
    Cgroups.removeRun(r.cgroups);
  }

  /** The pods with a folder under --root-dir (records, logs, volumes). */
  podFolders(): string[] {
    try {
      return readdirSync(join(this.o.rootDir, "pods"));
    } catch {
      return [];
    }
  }

  /**
   * Stops what is recorded for a pod this agent has no worker for (its runs' process groups: SIGTERM,
   * SIGKILL after its grace period), then forgets it.
   */
  async stopRecorded(uid: string, graceMs?: number): Promise<void> {
    await Promise.all([...podRecords(this.o.rootDir, uid)].map(async ([dir, r]) => {
      const prefix = runPrefix(dir, r.containerID);
      if (!readPid(prefix)) return;
      const proc = new ContainerProcess(r.containerID, prefix, new Date(r.startedAt));
      proc.signal("SIGTERM");
      const timeout = Bun.sleep(graceMs ?? r.graceSeconds * 1000).then(() => proc.signal("SIGKILL"));
      await Promise.race([proc.exited, timeout]);
      await proc.exited;
    }));
    this.forget(uid);
  }

  /** Removes a pod's records, logs and cgroups (its processes are gone), and its folder once empty. */
  forget(uid: string): void {
    if (typeof this.cgroups !== "string") this.cgroups.removePod(uid);
    rmSync(join(podDir(this.o.rootDir, uid), "containers"), { recursive: true, force: true });
    try { rmdirSync(podDir(this.o.rootDir, uid)); } catch { /* not empty: another part's files */ }
  }
}
