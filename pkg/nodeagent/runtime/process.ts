// One run of a container: a process group started by its shim (shim.ts), known by the shim's records
// (records.ts) so that it can be supervised by the agent that started it or, after a restart, by the next
// one. Only the process recorded as started for this run is ever signalled, and only while its start time
// still matches the record (a recycled pid is left alone).
import type { Limits } from "./cgroups.ts";
import type { ContainerStdin } from "./stdin.ts";
import { isSame, readExit, readPid, type PidRecord } from "./records.ts";

/** Docker's default PATH: a container's environment does not inherit the agent's. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export interface Mount { hostPath: string; containerPath: string; readOnly: boolean }

export interface ProcessSpec {
  argv: string[];
  env: Record<string, string>;
  workingDir: string;
  logPath: string;
  /** Bind-mounted at containerPath in the container's mount namespace. */
  mounts: Mount[];
  /** A network namespace to enter (a path such as /run/netns/NAME). */
  netns?: string;
  /** The container's UTS hostname (with namespaces). */
  hostname?: string;
  limits?: Limits;
  /** A stdin kept open for attach (spec.stdin): `once` closes it when the first attach ends (stdinOnce). */
  stdin?: StdinMode;
  /** spec.tty: the process runs on a terminal of its own (pty.ts); its stdin carries the terminal's frames. */
  tty?: boolean;
}

export type StdinMode = "keep" | "once";

export interface ProcessExit {
  /** The code, or 128 + the signal's number when a signal ended it (as a shell reports). */
  exitCode: number;
  finishedAt: Date;
  /** The kernel's OOM killer ended it (under its memory limit). */
  oomKilled?: boolean;
  /** Why it could not start, when it could not. */
  startError?: string;
  /** Its end was not recorded (the shim was killed too). */
  unknown?: boolean;
}

/** How often a process this agent did not start itself (adopted) is checked, and while it is being stopped. */
const POLL_MS = 1000, STOPPING_POLL_MS = 100;
/**
 * How long a just-started shim may take to record the process, and how often that is looked at: soon
 * at first, then less often (a hundred containers starting at once each read their record per look).
 */
const RECORD_WAIT_MS = 2000, STARTED_POLL_MS = 5, STARTED_POLL_MAX_MS = 40;

export class ContainerProcess {
  /** Set once the run has ended. */
  exit?: ProcessExit;
  readonly exited: Promise<ProcessExit>;
  private pollMs = POLL_MS;

  /**
   * `shimReaped` when this agent started the run: true once its shim was reaped (its end is then known
   * at once), false when that cannot be known (the spawner went first). Without it, adopted.
   */
  constructor(readonly id: string, private readonly prefix: string, readonly startedAt: Date, shimReaped?: Promise<boolean>, readonly stdin?: ContainerStdin) {
    // an adopted run that ended while no agent watched is known at once
    this.exit = shimReaped ? undefined : this.recordedExit();
    this.exited = this.exit ? Promise.resolve(this.exit) : this.watch(shimReaped).then((e) => (this.exit = e));
    void this.exited.then(() => stdin?.close());
  }

  private recordedExit(): ProcessExit | undefined {
    const e = readExit(this.prefix);
    return e && { exitCode: e.exitCode, finishedAt: e.finishedAt, oomKilled: e.oomKilled || undefined, startError: e.startError };
  }

  /** The container's pid (its process group's id) while it runs, once the shim has recorded it. */
  get pid(): number | undefined {
    return this.exit ? undefined : this.recorded()?.pid;
  }

  /**
   * Resolves once the shim has recorded the container's process (it then runs the command, in its
   * namespaces) or the run has ended, or after RECORD_WAIT_MS: what enters the container waits for it.
   */
  async started(): Promise<void> {
    let poll = STARTED_POLL_MS;
    for (const until = Date.now() + RECORD_WAIT_MS; !this.exit && !readPid(this.prefix) && Date.now() < until; poll = Math.min(2 * poll, STARTED_POLL_MAX_MS)) await Bun.sleep(poll);
  }

  /** The run's process, while it is the one recorded. */
  private recorded(): PidRecord | undefined {
    const p = readPid(this.prefix);
    return p && isSame(p.pid, p.start) ? p : undefined;
  }

  private async watch(shimReaped?: Promise<boolean>): Promise<ProcessExit> {
    const reaped = shimReaped ? await shimReaped : false;
    const deadline = Date.now() + RECORD_WAIT_MS;
    for (;;) {
      const e = this.recordedExit();
      if (e) return e;
      const p = readPid(this.prefix);
      const shimAlive = p ? isSame(p.shimPid, p.shimStart) : !reaped && Date.now() < deadline;
      if (!shimAlive && !(p && isSame(p.pid, p.start))) {
        // the shim may have written its record between the two reads
        if (readExit(this.prefix)) continue;
        return { exitCode: 137, finishedAt: new Date(), unknown: true };
      }
      await Bun.sleep(this.pollMs);
    }
  }

  /** Signals the run's process group (a no-op once it is gone; retried while the shim is still recording it). */
  signal(sig: NodeJS.Signals, tries = 100): void {
    if (this.exit) return;
    this.pollMs = STOPPING_POLL_MS;
    const p = this.recorded();
    if (!p) {
      if (tries > 0 && !readPid(this.prefix)) setTimeout(() => this.signal(sig, tries - 1), 20);
      return;
    }
    // recorded only once it leads its group (shim.ts)
    try { process.kill(-p.pid, sig); } catch { /* gone */ }
  }
}
