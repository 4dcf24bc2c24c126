// One container of a pod, supervised: start its process (or adopt the run a previous agent recorded),
// record how it ends, restart it as the pod's restartPolicy says (CrashLoopBackOff between early exits),
// stop it gracefully. Its status is kept in upstream's ContainerStatus shape; every change calls onChange.
import { sleep } from "../client/ratelimit.ts";
import { rfc3339 } from "../client/time.ts";
import { formatDuration } from "../util/duration.ts";
import type { CrashLoopBackoff } from "./backoff.ts";
import type { Obj } from "./node.ts";
import { containerConfig, type ContainerInputs } from "./runtime/config.ts";
import type { ContainerProcess, ProcessExit, ProcessSpec } from "./runtime/process.ts";
import type { ContainerRecord } from "./runtime/records.ts";
import type { ProcessRuntime, Resumed } from "./runtime/runtime.ts";

export interface ContainerContext {
  rootDir: string;
  runtime: ProcessRuntime;
  backoff: CrashLoopBackoff;
  onChange: () => void;
  /** The container's env and mounts now; throws the reason it cannot be configured yet. */
  inputs: (container: Obj) => Promise<ContainerInputs>;
  /** How long a container that cannot be configured waits before trying again. */
  retryMs: number;
  /** The pod's network namespace, once made; absent: the host's network. */
  netns?: string;
}

/** The terminated state of a run, with upstream's reasons. */
export function terminatedState(exit: ProcessExit, startedAt: string, containerID?: string): Obj {
  const t: Obj = { exitCode: exit.exitCode, reason: exit.exitCode === 0 ? "Completed" : "Error" };
  if (exit.oomKilled) t.reason = "OOMKilled";
  // containerd's answer to a process that cannot start
  if (exit.startError) Object.assign(t, { reason: "StartError", message: exit.startError });
  if (exit.unknown) Object.assign(t, { reason: "ContainerStatusUnknown", message: "the container's end was not recorded: its shim was killed" });
  return { ...t, startedAt, finishedAt: rfc3339(exit.finishedAt), ...(containerID && { containerID }) };
}

export class ContainerRunner {
  restartCount = 0;
  private state: Obj = { waiting: { reason: "ContainerCreating" } };
  private lastState: Obj = {};
  private containerID?: string;
  private proc?: ContainerProcess;
  private stopping = false;
  private readonly wake = new AbortController();
  /** The run a previous agent recorded, looked for before anything starts. */
  private resumed: Promise<Resumed | undefined> = Promise.resolve(undefined);

  constructor(private readonly pod: Obj, private readonly spec: Obj, private readonly ctx: ContainerContext) {}

  /** The process group of the running process, if one runs. */
  get pgid(): number | undefined { return this.state.running ? this.proc?.pid : undefined; }

  get name(): string { return this.spec.name; }

  status(): Obj {
    const running = !!this.state.running;
    const s: Obj = {
      name: this.spec.name, state: this.state, lastState: this.lastState, ready: running,
      restartCount: this.restartCount, image: this.spec.image ?? "", imageID: "",
    };
    if (this.containerID) s.containerID = this.containerID;
    s.started = running;
    return s;
  }

  /** Keeps the container waiting with CreateContainerConfigError for a reason the runtime cannot run it. */
  refuse(message: string): void {
    this.set({ waiting: { reason: "CreateContainerConfigError", message } });
  }

  /** Keeps the container waiting while its pod's volumes are not set up (upstream shows no message; Kite says why). */
  creating(message: string): void {
    this.set({ waiting: { reason: "ContainerCreating", message } });
  }

  private set(state: Obj): void {
    this.state = state;
    this.ctx.onChange();
  }

  private get key(): string { return `${this.pod.metadata.uid}/${this.spec.name}`; }

  /** Runs until the container is done for good (its restartPolicy says so) or stop() is called. */
  async run(): Promise<void> {
    this.resumed = this.ctx.runtime.resume(this.pod.metadata.uid, this.spec.name);
    const resumed = await this.resumed;
    let terminated: Obj | undefined;
    if (resumed) {
      // the status continues where the previous agent left it
      this.restartCount = resumed.record.restartCount;
      this.lastState = resumed.record.lastState;
      this.containerID = resumed.record.containerID;
      if (resumed.proc) terminated = await this.supervise(resumed.proc, resumed.record);
    }
    while (!this.stopping) {
      if (!terminated) {
        let inputs: ContainerInputs;
        try {
          inputs = await this.ctx.inputs(this.spec);
        } catch (e) {
          // a missing ConfigMap, Secret or key may appear: tried again, as upstream's pod sync retries
          this.refuse((e as Error).message);
          try { await sleep(this.ctx.retryMs, this.wake.signal); } catch { return; }
          continue;
        }
        const config = containerConfig(this.pod, this.spec, this.ctx.rootDir, this.restartCount, inputs);
        if ("error" in config) return this.refuse(config.error);
        const refused = this.ctx.runtime.refuse(this.spec.name, config.spec);
        if (refused) return this.refuse(refused);
        terminated = await this.runOnce({ ...config.spec, netns: this.ctx.netns });
      }
      if (this.stopping || !this.shouldRestart(terminated.exitCode)) return this.set({ terminated });
      const wait = this.ctx.backoff.remaining(this.key, Date.parse(terminated.finishedAt));
      if (wait > 0) {
        this.lastState = { terminated };
        const p = this.pod.metadata;
        this.set({ waiting: { reason: "CrashLoopBackOff", message: `back-off ${formatDuration(this.ctx.backoff.current(this.key))} restarting failed container=${this.spec.name} pod=${p.name}_${p.namespace}(${p.uid})` } });
        try { await sleep(wait, this.wake.signal); } catch { return this.set({ terminated }); }
      }
      this.ctx.backoff.next(this.key);
      this.lastState = { terminated };
      this.restartCount++;
      terminated = undefined;
    }
  }

  /** One run of the process, to its terminated state. */
  private async runOnce(spec: ProcessSpec): Promise<Obj> {
    let started: { proc: ContainerProcess; record: ContainerRecord };
    try {
      const graceSeconds = this.pod.spec.terminationGracePeriodSeconds ?? 30;
      started = this.ctx.runtime.start(this.pod.metadata.uid, this.spec.name, spec, { restartCount: this.restartCount, lastState: this.lastState, graceSeconds });
    } catch (e) {
      const at = new Date();
      return terminatedState({ exitCode: 128, finishedAt: at, startError: (e as Error).message }, rfc3339(at));
    }
    return this.supervise(started.proc, started.record);
  }

  /** Running until the run ends, then its terminated state. */
  private async supervise(proc: ContainerProcess, record: ContainerRecord): Promise<Obj> {
    this.proc = proc;
    this.containerID = record.containerID;
    const startedAt = rfc3339(proc.startedAt);
    if (!proc.exit) this.set({ running: { startedAt } });
    const exit = await proc.exited;
    this.ctx.runtime.ended(record);
    return terminatedState(exit, startedAt, record.containerID);
  }

  private shouldRestart(exitCode: number): boolean {
    const policy = this.pod.spec.restartPolicy ?? "Always";
    return policy === "Always" || (policy === "OnFailure" && exitCode !== 0);
  }

  /** SIGTERM to the process group, SIGKILL after graceMs; resolves once it is gone. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.wake.abort();
    await this.resumed;
    const proc = this.proc;
    if (!proc) return;
    let gone = false;
    const exited = proc.exited.then(() => { gone = true; });
    proc.signal("SIGTERM");
    await Promise.race([exited, Bun.sleep(graceMs)]);
    if (!gone) proc.signal("SIGKILL");
    await exited;
  }
}
