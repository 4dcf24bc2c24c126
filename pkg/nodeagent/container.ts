// One container of a pod, supervised: start its process, run its postStart hook, probe it, record how it
// ends (with its termination message), restart it as the pod's restartPolicy says (CrashLoopBackOff
// between early exits), stop it gracefully (preStop, SIGTERM, SIGKILL). Its status is kept in upstream's
// ContainerStatus shape; every change calls onChange. An init container runs to completion: it is
// restarted only after a failure, and never under restartPolicy Never.
import { consola } from "consola";
import { sleep } from "../client/ratelimit.ts";
import { rfc3339 } from "../client/time.ts";
import { formatDuration } from "../util/duration.ts";
import type { CrashLoopBackoff } from "./backoff.ts";
import { podDesc, runHook } from "./hooks.ts";
import { RUNTIME_SCHEME, type Obj } from "./node.ts";
import type { ContainerTarget } from "./probes/handler.ts";
import { ProbeWorker, type ProbeType } from "./probes/worker.ts";
import { containerConfig } from "./runtime/config.ts";
import { ContainerProcess, type ProcessSpec } from "./runtime/process.ts";
import { createTerminationFile, TERMINATION_MESSAGE_ENV, terminationMessage } from "./termination.ts";

export interface ContainerContext {
  rootDir: string;
  backoff: CrashLoopBackoff;
  onChange: () => void;
  /** The pod's IP: where probes and HTTP hooks go when they name no host. */
  podIP: () => string;
}

/** upstream's minimumGracePeriodInSeconds: a container always gets 2 s between SIGTERM and SIGKILL. */
const MIN_GRACE_MS = 2000;

/** The longest a container's running state waits for its first readiness probe (see firstReadiness). */
const FIRST_READINESS_WAIT_MS = 1000;

const PROBES: [ProbeType, string][] = [["startup", "startupProbe"], ["liveness", "livenessProbe"], ["readiness", "readinessProbe"]];

/** One run of the container's process, with what watches it. */
interface Run {
  proc: ContainerProcess;
  target: ContainerTarget;
  abort: AbortController;
  probes: Map<ProbeType, ProbeWorker>;
  gone: boolean;
  killing?: Promise<void>;
  /** A failed liveness or startup probe killed it: restarted unless the policy is Never, whatever its exit code. */
  killedByProbe?: boolean;
}

/** Resolves when `p` does or after ms, whichever is first (the timer does not outlive it). */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p, new Promise<void>((r) => { timer = setTimeout(r, ms); })]);
  clearTimeout(timer);
}

export class ContainerRunner {
  restartCount = 0;
  private state: Obj;
  private lastState: Obj = {};
  private containerID?: string;
  private current?: Run;
  private stopping = false;
  private readonly wake = new AbortController();

  constructor(private readonly pod: Obj, private readonly spec: Obj, private readonly ctx: ContainerContext, readonly init = false) {
    // upstream's default waiting reason: a pod with init containers is initializing
    this.state = { waiting: { reason: pod.spec.initContainers?.length ? "PodInitializing" : "ContainerCreating" } };
  }

  get name(): string { return this.spec.name; }

  /** Exited 0: an init container that is done. */
  get succeeded(): boolean { return this.state.terminated?.exitCode === 0; }

  /** The process group of the running process, if one runs. */
  get pgid(): number | undefined { return this.state.running ? this.current?.proc.pid : undefined; }

  status(): Obj {
    const running = !!this.state.running;
    // upstream's prober manager: started once the startup probe succeeded (or there is none);
    // ready once started and the readiness probe succeeded (or there is none)
    const passed = (t: ProbeType) => { const w = this.current?.probes.get(t); return !w || w.result === true; };
    const started = running && passed("startup");
    const ready = this.init ? this.succeeded : started && passed("readiness");
    const s: Obj = {
      name: this.spec.name, state: this.state, lastState: this.lastState, ready,
      restartCount: this.restartCount, image: this.spec.image ?? "", imageID: "",
    };
    if (this.containerID) s.containerID = this.containerID;
    if (!this.init) s.started = started;
    return s;
  }

  /** Keeps the container waiting with CreateContainerConfigError for a reason the runtime cannot run it. */
  refuse(message: string): void {
    this.set({ waiting: { reason: "CreateContainerConfigError", message } });
  }

  private set(state: Obj): void {
    this.state = state;
    this.ctx.onChange();
  }

  private get key(): string { return `${this.pod.metadata.uid}/${this.spec.name}`; }

  private get graceMs(): number { return 1000 * (this.pod.spec.terminationGracePeriodSeconds ?? 30); }

  /** Runs until the container is done for good (its restartPolicy says so) or stop() is called. */
  async run(): Promise<void> {
    while (!this.stopping) {
      const config = containerConfig(this.pod, this.spec, this.ctx.rootDir, this.restartCount);
      if ("error" in config) return this.refuse(config.error);
      const { terminated, killedByProbe, hookError } = await this.runOnce(config.spec);
      if (this.stopping || !this.shouldRestart(terminated.exitCode, killedByProbe)) return this.set({ terminated });
      this.lastState = { terminated };
      const wait = this.ctx.backoff.remaining(this.key, Date.parse(terminated.finishedAt));
      if (wait > 0) {
        this.set({ waiting: { reason: "CrashLoopBackOff", message: `back-off ${formatDuration(this.ctx.backoff.current(this.key))} restarting failed container=${this.spec.name} pod=${podDesc(this.pod)}` } });
        try { await sleep(wait, this.wake.signal); } catch { return this.set({ terminated }); }
      } else if (hookError) {
        // upstream's waiting state for a container whose start failed, until it starts again
        this.set({ waiting: { reason: "PostStartHookError", message: hookError } });
      }
      this.ctx.backoff.next(this.key);
      this.restartCount++;
    }
  }

  private shouldRestart(exitCode: number, killedByProbe: boolean): boolean {
    const policy = this.pod.spec.restartPolicy ?? "Always";
    if (policy === "Never") return false;
    if (this.init) return exitCode !== 0;
    return policy === "Always" || exitCode !== 0 || killedByProbe;
  }

  /** One run of the process, to its terminated state. */
  private async runOnce(spec: ProcessSpec): Promise<{ terminated: Obj; killedByProbe: boolean; hookError?: string }> {
    const messageFile = createTerminationFile(spec.logPath, this.restartCount);
    spec.env = { ...spec.env, [TERMINATION_MESSAGE_ENV]: messageFile };
    let proc: ContainerProcess;
    try {
      proc = new ContainerProcess(spec);
    } catch (e) {
      // containerd's answer to a process that cannot start
      const at = rfc3339(new Date());
      return { terminated: { exitCode: 128, reason: "StartError", message: (e as Error).message, startedAt: at, finishedAt: at }, killedByProbe: false };
    }
    this.containerID = `${RUNTIME_SCHEME}://${proc.id}`;
    const abort = new AbortController();
    const target = { pod: this.pod, container: this.spec, process: spec, podIP: this.ctx.podIP(), signal: abort.signal };
    const run: Run = this.current = { proc, target, abort, probes: new Map(), gone: false };
    // what a probe or hook still runs when the container ends goes with it
    void proc.exited.then(() => { run.gone = true; abort.abort(); });
    const startedAt = rfc3339(proc.startedAt);

    // upstream reports the container running once its postStart hook is done; a failed hook kills it
    const postStart = this.spec.lifecycle?.postStart;
    // the pod's status says ContainerCreating while a hook runs, however long it takes
    if (postStart) this.ctx.onChange();
    let hookError = postStart && !this.stopping ? await runHook(postStart, target) : undefined;
    if (hookError && !run.gone) {
      consola.warn(`FailedPostStartHook: ${hookError}`);
      void this.kill(run, this.graceMs);
    } else hookError = undefined;
    if (!hookError && !run.gone && !this.stopping) {
      this.startProbes(run, proc.startedAt.getTime());
      await this.firstReadiness(run);
      if (!run.gone) this.set({ running: { startedAt } });
    }

    const exit = await proc.exited;
    for (const w of run.probes.values()) w.stop();
    const fallbackToLogs = this.spec.terminationMessagePolicy === "FallbackToLogsOnError" && exit.exitCode !== 0;
    const message = terminationMessage(messageFile, spec.logPath, fallbackToLogs);
    const terminated: Obj = { exitCode: exit.exitCode, reason: exit.exitCode === 0 ? "Completed" : "Error" };
    if (message) terminated.message = message;
    Object.assign(terminated, { startedAt, finishedAt: rfc3339(exit.finishedAt), containerID: this.containerID });
    return { terminated, killedByProbe: !!run.killedByProbe, hookError };
  }

  /**
   * A readiness probe due at the start is awaited (for at most its timeout, at most 1 s) before the
   * container is reported running: running and ready then reach the API server in one status write.
   */
  private async firstReadiness(run: Run): Promise<void> {
    const readiness = run.probes.get("readiness");
    if (!readiness || run.probes.has("startup") || readiness.timing.initialDelayMs > 0) return;
    await within(readiness.firstProbe, Math.min(readiness.timing.timeoutMs, FIRST_READINESS_WAIT_MS));
  }

  /** Startup first; liveness and readiness once it succeeded (at once without one). */
  private startProbes(run: Run, startedAt: number): void {
    const startOthers = () => { run.probes.get("liveness")?.start(startedAt); run.probes.get("readiness")?.start(startedAt); };
    const onResult = (w: ProbeWorker) => {
      if (w.type === "startup" && w.result) startOthers();
      if (w.result === false && w.type !== "readiness" && !run.gone && !this.stopping) {
        const restart = (this.pod.spec.restartPolicy ?? "Always") !== "Never";
        consola.info(`Killing: Container ${this.spec.name} failed ${w.type} probe${restart ? ", will be restarted" : ""} (pod ${podDesc(this.pod)})`);
        run.killedByProbe = true;
        void this.kill(run, this.graceMs);
      }
      // results count in the status only while it says running (the first readiness one comes with that)
      if (this.state.running) this.ctx.onChange();
    };
    for (const [type, field] of PROBES) {
      if (this.spec[field]) run.probes.set(type, new ProbeWorker(type, this.spec[field], run.target, onResult));
    }
    const startup = run.probes.get("startup");
    if (startup) startup.start(startedAt);
    else startOthers();
  }

  /**
   * Upstream's graceful stop of one run: the preStop hook (for at most the grace period), then SIGTERM
   * to the process group and SIGKILL of the whole group once the rest of the grace period (at least 2 s)
   * is over. Resolves once the process is gone.
   */
  private kill(run: Run, graceMs: number): Promise<void> {
    run.killing ??= (async () => {
      const began = Date.now();
      const preStop = this.spec.lifecycle?.preStop;
      if (preStop && graceMs > 0 && !run.gone) {
        await within(runHook(preStop, run.target).then((error) => { if (error) consola.warn(`FailedPreStopHook: ${error}`); }), graceMs);
      }
      run.proc.signal("SIGTERM");
      await within(run.proc.exited, Math.max(graceMs - (Date.now() - began), MIN_GRACE_MS));
      run.proc.signal("SIGKILL");
      await run.proc.exited;
    })();
    return run.killing;
  }

  /** Stops the container for good (preStop, SIGTERM, SIGKILL after graceMs); resolves once it is gone. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.wake.abort();
    const run = this.current;
    if (!run || run.gone) return;
    // as upstream, a stopping container is no longer probed for liveness
    run.probes.get("liveness")?.stop();
    run.probes.get("startup")?.stop();
    await this.kill(run, graceMs);
  }
}
