// One container of a pod, supervised: start its process (or adopt the run a previous agent recorded), run
// its postStart hook, probe it, record how it ends (with its termination message), restart it as the
// pod's restartPolicy says (CrashLoopBackOff between early exits), stop it gracefully (preStop, SIGTERM,
// SIGKILL), recording the kubelet's events about it (Created, Started, Killing, BackOff, Failed, hook
// failures; probes record Unhealthy). Its status is kept in upstream's ContainerStatus shape; every change
// calls onChange. An init container runs to completion: it is restarted only after a failure, and never
// under restartPolicy Never.
import { consola } from "consola";
import type { CoreEventRecorder } from "../client/corev1events.ts";
import { sleep } from "../client/ratelimit.ts";
import { rfc3339 } from "../client/time.ts";
import { formatDuration } from "../util/duration.ts";
import type { CrashLoopBackoff } from "./backoff.ts";
import { containerRef, recordFor, type RecordEvent } from "./events.ts";
import { podDesc, runHook } from "./hooks.ts";
import type { Obj } from "./node.ts";
import type { ExecTarget } from "./probes/exec.ts";
import type { ContainerTarget } from "./probes/handler.ts";
import { ProbeWorker, type ProbeType } from "./probes/worker.ts";
import { containerConfig, logPath, type ContainerInputs } from "./runtime/config.ts";
import type { ContainerProcess, ProcessExit, ProcessSpec } from "./runtime/process.ts";
import type { ContainerRecord } from "./runtime/records.ts";
import type { ContainerStdin } from "./runtime/stdin.ts";
import type { ProcessRuntime, Resumed } from "./runtime/runtime.ts";
import { createTerminationFile, TERMINATION_MESSAGE_ENV, terminationFile, terminationMessage } from "./termination.ts";

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
  /** The pod's IP: where probes and HTTP hooks go when they name no host. */
  podIP: () => string;
  /** The agent's event recorder (source kubelet). */
  events: CoreEventRecorder;
}

/** The terminated state of a run, with upstream's reasons. */
export function terminatedState(exit: ProcessExit, startedAt: string, containerID?: string, message?: string): Obj {
  const t: Obj = { exitCode: exit.exitCode, reason: exit.exitCode === 0 ? "Completed" : "Error" };
  if (exit.oomKilled) t.reason = "OOMKilled";
  // containerd's answer to a process that cannot start
  if (exit.startError) Object.assign(t, { reason: "StartError", message: exit.startError });
  if (exit.unknown) Object.assign(t, { reason: "ContainerStatusUnknown", message: "the container's end was not recorded: its shim was killed" });
  // the container's own words follow the runtime's (upstream's "message: termination message")
  if (message) t.message = t.message ? `${t.message}: ${message}` : message;
  return { ...t, startedAt, finishedAt: rfc3339(exit.finishedAt), ...(containerID && { containerID }) };
}

/** upstream's minimumGracePeriodInSeconds: a container always gets 2 s between SIGTERM and SIGKILL. */
const MIN_GRACE_MS = 2000;

/** The longest a container's running state waits for its first readiness probe (see firstReadiness). */
const FIRST_READINESS_WAIT_MS = 1000;

const PROBES: [ProbeType, string][] = [["startup", "startupProbe"], ["liveness", "livenessProbe"], ["readiness", "readinessProbe"]];

/** A running container as attach sees it; `tty`: its stdin takes the terminal's frames (runtime/pty.ts). */
export interface AttachTarget { stdin?: ContainerStdin; tty: boolean; logPath: string; running(): boolean }

/** One run of the container's process, with what watches it. */
interface Run {
  proc: ContainerProcess;
  target: ContainerTarget;
  abort: AbortController;
  probes: Map<ProbeType, ProbeWorker>;
  gone: boolean;
  killing?: Promise<void>;
  /** When the stop under way sends SIGKILL. */
  killBy?: number;
  /** A failed liveness or startup probe killed it: restarted unless the policy is Never, whatever its exit code. */
  killedByProbe?: boolean;
  /** Its postStart hook failed (upstream's message). */
  hookError?: string;
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
  /** A run being started (files, cgroups, record, shim): a stop waits for it, then stops that run. */
  private launching?: Promise<unknown>;
  /** The run a previous agent recorded, looked for before anything starts. */
  private resumed: Promise<Resumed | undefined> = Promise.resolve(undefined);
  /** Records an event about this container. */
  private readonly record: RecordEvent;

  constructor(private readonly pod: Obj, private readonly spec: Obj, private readonly ctx: ContainerContext, readonly init = false) {
    this.record = recordFor(ctx.events, containerRef(pod, spec.name, init));
    // upstream's default waiting reason: a pod with init containers is initializing
    this.state = { waiting: { reason: pod.spec.initContainers?.length ? "PodInitializing" : "ContainerCreating" } };
  }

  /** The process group of the running process, if one runs. */
  get pgid(): number | undefined { return this.state.running ? this.current?.proc.pid : undefined; }

  /** How a command runs inside the running container (exec), or undefined while none runs. */
  get execTarget(): ExecTarget | undefined { return this.state.running && this.current && !this.current.gone ? this.current.target.process : undefined; }

  /** What attach joins while a run goes: its stdin (spec.stdin), its log file, whether it still runs. */
  get attachTarget(): AttachTarget | undefined {
    const run = this.current;
    if (!this.state.running || !run || run.gone) return undefined;
    return { stdin: run.proc.stdin, tty: !!this.spec.tty, logPath: logPath(this.ctx.rootDir, this.pod.metadata.uid, this.spec.name, this.restartCount), running: () => !run.gone };
  }

  get name(): string { return this.spec.name; }

  /** Exited 0: an init container that is done. */
  get succeeded(): boolean { return this.state.terminated?.exitCode === 0; }

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
    this.record("Warning", "Failed", `Error: ${message}`);
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

  private get graceMs(): number { return 1000 * (this.pod.spec.terminationGracePeriodSeconds ?? 30); }

  /** Runs until the container is done for good (its restartPolicy says so) or stop() is called. */
  async run(): Promise<void> {
    this.resumed = this.ctx.runtime.resume(this.pod.metadata.uid, this.spec.name);
    const resumed = await this.resumed;
    let ended: { terminated: Obj; run?: Run } | undefined;
    if (resumed) {
      // the status continues where the previous agent left it
      this.restartCount = resumed.record.restartCount;
      this.lastState = resumed.record.lastState;
      this.containerID = resumed.record.containerID;
      if (resumed.proc) ended = await this.supervise(resumed.proc, resumed.record, undefined, false);
    }
    while (!this.stopping) {
      if (!ended) {
        let inputs: ContainerInputs;
        try {
          inputs = await this.ctx.inputs(this.spec);
        } catch (e) {
          // a missing ConfigMap, Secret or key may appear: tried again, as upstream's pod sync retries
          this.refuse((e as Error).message);
          try { await sleep(this.ctx.retryMs, this.wake.signal); } catch { return; }
          continue;
        }
        if (this.stopping) return;
        const config = containerConfig(this.pod, this.spec, this.ctx.rootDir, this.restartCount, inputs);
        if ("error" in config) return this.refuse(config.error);
        const refused = this.ctx.runtime.refuse(this.spec.name, config.spec);
        if (refused) return this.refuse(refused);
        ended = await this.runOnce({ ...config.spec, netns: this.ctx.netns });
      }
      const { terminated, run } = ended;
      if (this.stopping || !this.shouldRestart(terminated.exitCode, !!run?.killedByProbe)) return this.set({ terminated });
      this.lastState = { terminated };
      const wait = this.ctx.backoff.remaining(this.key, Date.parse(terminated.finishedAt));
      if (wait > 0) {
        this.set({ waiting: { reason: "CrashLoopBackOff", message: `back-off ${formatDuration(this.ctx.backoff.current(this.key))} restarting failed container=${this.spec.name} pod=${podDesc(this.pod)}` } });
        // upstream records BackOff at every sync of the pod while it waits (the same event, counted up)
        const until = Date.now() + wait;
        for (let left = wait; left > 0; left = until - Date.now()) {
          this.record("Warning", "BackOff", "Back-off restarting failed container");
          try { await sleep(Math.min(left, this.ctx.retryMs), this.wake.signal); } catch { return this.set({ terminated }); }
        }
      } else if (run?.hookError) {
        // upstream's waiting state for a container whose start failed, until it starts again
        this.set({ waiting: { reason: "PostStartHookError", message: run.hookError } });
      }
      this.ctx.backoff.next(this.key);
      this.restartCount++;
      ended = undefined;
    }
  }

  private shouldRestart(exitCode: number, killedByProbe: boolean): boolean {
    const policy = this.pod.spec.restartPolicy ?? "Always";
    if (policy === "Never") return false;
    if (this.init) return exitCode !== 0;
    return policy === "Always" || exitCode !== 0 || killedByProbe;
  }

  /** One run of the process, to its terminated state. */
  private async runOnce(spec: ProcessSpec): Promise<{ terminated: Obj; run?: Run }> {
    const launch = this.launching = this.launch(spec);
    const started = await launch;
    this.launching = undefined;
    if ("terminated" in started) return started;
    this.record("Normal", "Created", `Created container ${this.spec.name}`);
    this.record("Normal", "Started", `Started container ${this.spec.name}`);
    return this.supervise(started.proc, started.record, spec, true);
  }

  /** A run's files, cgroups, record and shim; its terminated state (StartError) when it cannot start. */
  private async launch(spec: ProcessSpec): Promise<{ proc: ContainerProcess; record: ContainerRecord } | { terminated: Obj }> {
    try {
      const messageFile = await createTerminationFile(spec.logPath, this.restartCount);
      spec.env = { ...spec.env, [TERMINATION_MESSAGE_ENV]: messageFile };
      const graceSeconds = this.pod.spec.terminationGracePeriodSeconds ?? 30;
      return await this.ctx.runtime.start(this.pod.metadata.uid, this.spec.name, spec, { restartCount: this.restartCount, lastState: this.lastState, graceSeconds });
    } catch (e) {
      this.record("Warning", "Failed", `Error: ${(e as Error).message}`);
      const at = new Date();
      return { terminated: terminatedState({ exitCode: 128, finishedAt: at, startError: (e as Error).message }, rfc3339(at)) };
    }
  }

  /**
   * Running until the run ends, then its terminated state. A run this agent started gets its postStart
   * hook first (upstream reports the container running once that is done; a failed hook kills it); an
   * adopted one had it already. `spec` is the run's process settings (for an adopted run: none known,
   * so exec probes and hooks run with the container's spec env only).
   */
  private async supervise(proc: ContainerProcess, record: ContainerRecord, spec: ProcessSpec | undefined, fresh: boolean): Promise<{ terminated: Obj; run: Run }> {
    this.containerID = record.containerID;
    const startedAt = rfc3339(proc.startedAt);
    const abort = new AbortController();
    const settings = spec ?? { env: Object.fromEntries((this.spec.env ?? []).map((e: Obj) => [e.name, e.value ?? ""])), workingDir: this.spec.workingDir || "/" };
    // exec probes and hooks join the container's namespaces (through its process) where it has its own: by the
    // runtime's probe helper; kubectl exec by nsenter
    const nsenter = this.ctx.runtime.sandbox.nsenter;
    const enter = () => {
      const pid = proc.pid;
      return nsenter && pid ? [nsenter, `--target=${pid}`, "--mount", "--uts", "--ipc", "--net", "--pid", `--wd=${settings.workingDir}`] : undefined;
    };
    const prober = this.ctx.runtime.prober;
    const inside = () => (prober && proc.pid ? { prober, pid: proc.pid } : undefined);
    const process = { env: settings.env, workingDir: settings.workingDir, enter, inside };
    const target: ContainerTarget = { pod: this.pod, container: this.spec, process, podIP: this.ctx.podIP(), signal: abort.signal, record: this.record };
    const run: Run = this.current = { proc, target, abort, probes: new Map(), gone: !!proc.exit };
    // what a probe or hook still runs when the container ends goes with it
    void proc.exited.then(() => { run.gone = true; abort.abort(); });

    // exec hooks and probes enter the container through its recorded process: the first ones wait for it
    if (fresh) await proc.started();
    const postStart = fresh ? this.spec.lifecycle?.postStart : undefined;
    if (postStart && !run.gone && !this.stopping) {
      // the pod's status says ContainerCreating while a hook runs, however long it takes
      this.ctx.onChange();
      const error = await runHook(postStart, target);
      if (error && !run.gone) {
        run.hookError = error;
        consola.warn(`FailedPostStartHook: ${error}`);
        this.record("Warning", "FailedPostStartHook", error);
        void this.kill(run, this.graceMs);
      }
    }
    if (!run.hookError && !run.gone && !this.stopping) {
      this.startProbes(run, proc.startedAt.getTime());
      await this.firstReadiness(run);
      if (!run.gone) this.set({ running: { startedAt } });
    }

    const exit = await proc.exited;
    for (const w of run.probes.values()) w.stop();
    this.ctx.runtime.ended(record);
    const fallbackToLogs = this.spec.terminationMessagePolicy === "FallbackToLogsOnError" && exit.exitCode !== 0 && !exit.startError;
    const log = spec?.logPath ?? logPath(this.ctx.rootDir, this.pod.metadata.uid, this.spec.name, this.restartCount);
    const message = terminationMessage(terminationFile(log, this.restartCount), log, fallbackToLogs);
    return { terminated: terminatedState(exit, startedAt, record.containerID, message || undefined), run };
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
        const message = `Container ${this.spec.name} failed ${w.type} probe${restart ? ", will be restarted" : ""}`;
        consola.info(`Killing: ${message} (pod ${podDesc(this.pod)})`);
        this.record("Normal", "Killing", message);
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
    const deadline = Date.now() + Math.max(graceMs, MIN_GRACE_MS);
    if (run.killing) {
      // asked again with less time (a stopping cluster): SIGKILL at the earlier deadline
      if (deadline < (run.killBy ?? Infinity)) {
        run.killBy = deadline;
        setTimeout(() => run.proc.signal("SIGKILL"), deadline - Date.now());
      }
      return run.killing;
    }
    run.killBy = deadline;
    run.killing = (async () => {
      const began = Date.now();
      const preStop = this.spec.lifecycle?.preStop;
      if (preStop && graceMs > 0 && !run.gone) {
        await within(runHook(preStop, run.target).then((error) => {
          if (!error) return;
          consola.warn(`FailedPreStopHook: ${error}`);
          this.record("Warning", "FailedPreStopHook", error);
        }), graceMs);
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
    await this.resumed;
    await this.launching;
    const run = this.current;
    if (!run || run.gone) return;
    // as upstream, a stopping container is no longer probed for liveness
    run.probes.get("liveness")?.stop();
    run.probes.get("startup")?.stop();
    if (!run.killing) this.record("Normal", "Killing", `Stopping container ${this.spec.name}`);
    await this.kill(run, graceMs);
  }
}
