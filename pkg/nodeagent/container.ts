// One container of a pod, supervised: start its process, record how it ends, restart it as the pod's
// restartPolicy says (CrashLoopBackOff between early exits), stop it gracefully. Its status is kept in
// upstream's ContainerStatus shape; every change calls onChange.
import { sleep } from "../client/ratelimit.ts";
import { rfc3339 } from "../client/time.ts";
import { formatDuration } from "../util/duration.ts";
import type { CrashLoopBackoff } from "./backoff.ts";
import { RUNTIME_SCHEME, type Obj } from "./node.ts";
import { containerConfig, type ContainerInputs } from "./runtime/config.ts";
import { ContainerProcess, unsupported, type ProcessSpec } from "./runtime/process.ts";

export interface ContainerContext {
  rootDir: string;
  backoff: CrashLoopBackoff;
  onChange: () => void;
  /** The container's env and mounts now; throws the reason it cannot be configured yet. */
  inputs: (container: Obj) => Promise<ContainerInputs>;
  /** How long a container that cannot be configured waits before trying again. */
  retryMs: number;
  /** The pod's network namespace, once made; absent: the host's network. */
  netns?: string;
}

export class ContainerRunner {
  restartCount = 0;
  private state: Obj = { waiting: { reason: "ContainerCreating" } };
  private lastState: Obj = {};
  private containerID?: string;
  private proc?: ContainerProcess;
  private stopping = false;
  private readonly wake = new AbortController();

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
    while (!this.stopping) {
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
      const why = unsupported(config.spec);
      if (why) return this.refuse(`container "${this.spec.name}" ${why}`);
      const terminated = await this.runOnce({ ...config.spec, netns: this.ctx.netns });
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
    }
  }

  /** One run of the process, to its terminated state. */
  private async runOnce(spec: ProcessSpec): Promise<Obj> {
    let proc: ContainerProcess;
    try {
      proc = this.proc = new ContainerProcess(spec);
    } catch (e) {
      // containerd's answer to a process that cannot start
      const at = rfc3339(new Date());
      return { exitCode: 128, reason: "StartError", message: (e as Error).message, startedAt: at, finishedAt: at };
    }
    this.containerID = `${RUNTIME_SCHEME}://${proc.id}`;
    const startedAt = rfc3339(proc.startedAt);
    this.set({ running: { startedAt } });
    const exit = await proc.exited;
    return {
      exitCode: exit.exitCode, reason: exit.exitCode === 0 ? "Completed" : "Error",
      startedAt, finishedAt: rfc3339(exit.finishedAt), containerID: this.containerID,
    };
  }

  private shouldRestart(exitCode: number): boolean {
    const policy = this.pod.spec.restartPolicy ?? "Always";
    return policy === "Always" || (policy === "OnFailure" && exitCode !== 0);
  }

  /** SIGTERM to the process group, SIGKILL after graceMs; resolves once it is gone. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.wake.abort();
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
