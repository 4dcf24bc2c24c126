// One container as a supervised host process group: `command` + `args` run in a new session (so the
// group id is the leader's pid), output to the container's log through its stamper (output.ts), and only
// groups this agent started are ever signalled.
import { containerOutput } from "./output.ts";

/** Docker's default PATH: a container's environment does not inherit the agent's. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** A folder or file of the host seen at containerPath inside the container. */
export interface Mount { hostPath: string; containerPath: string; readOnly: boolean }

export interface ProcessSpec {
  argv: string[];
  env: Record<string, string>;
  workingDir: string;
  logPath: string;
  mounts: Mount[];
}

/** Why this runtime cannot run `spec` yet (a waiting container's message after its name), or undefined. */
export function unsupported(spec: ProcessSpec): string | undefined {
  if (spec.mounts.length) return "mounts volumes, which the process runtime does not support yet";
}

export interface ProcessExit {
  exitCode: number;
  /** The signal that ended the leader, if one did (exitCode is then 128 + its number, as a shell reports). */
  signal?: string;
  finishedAt: Date;
}

/** Signal numbers for the exit code of a signalled process (128 + n). */
const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 };

/** Process groups started by this agent and not yet gone: the only ones it may signal. */
const ours = new Set<number>();

export class ContainerProcess {
  readonly id = randomId();
  readonly startedAt = new Date();
  readonly exited: Promise<ProcessExit>;
  private readonly proc: ReturnType<typeof Bun.spawn>;

  /** Throws when the process cannot start (no such executable, no working directory). */
  constructor(spec: ProcessSpec) {
    const [cmd, ...args] = spec.argv;
    const exe = cmd.includes("/") ? cmd : Bun.which(cmd, { PATH: spec.env.PATH ?? DEFAULT_PATH });
    if (!exe) throw new Error(`exec: "${cmd}": executable file not found in $PATH`);
    const out = containerOutput(spec.logPath);
    try {
      this.proc = Bun.spawn([exe, ...args], { cwd: spec.workingDir, env: spec.env, stdin: "ignore", stdout: out.stdout, stderr: out.stderr, detached: true });
    } finally {
      out.close();
    }
    const pgid = this.proc.pid;
    ours.add(pgid);
    this.exited = this.proc.exited.then(() => {
      // the leader is gone: what is left of its group goes too, as a container's processes end with its pid 1
      signalGroup(pgid, "SIGKILL");
      ours.delete(pgid);
      const signal = this.proc.signalCode ? String(this.proc.signalCode) : undefined;
      const exitCode = signal ? 128 + (SIGNAL_NUMBERS[signal] ?? 0) : this.proc.exitCode ?? 0;
      return { exitCode, signal, finishedAt: new Date() };
    });
  }

  get pid(): number { return this.proc.pid; }

  /** Signals the whole process group (a no-op once it is gone). */
  signal(sig: NodeJS.Signals): void { signalGroup(this.proc.pid, sig); }
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  if (!ours.has(pgid)) return;
  try { process.kill(-pgid, sig); } catch { /* already gone */ }
}

function randomId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
}
