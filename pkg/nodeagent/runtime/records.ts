// What the process runtime keeps on disk, so that a restarted agent finds its containers again: per
// container (ROOT/pods/<uid>/containers/<name>/) the agent's record of the current run (record.json:
// containerID, restartCount, startedAt, lastState), and per run the shim's files: <id>.pid (the
// container's pid = pgid, its start time, the shim's pid and start time), <id>.exit (exit code, OOM kill)
// and <id>.err (why the process could not start).
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Obj } from "../node.ts";

export interface ContainerRecord {
  containerID: string;
  restartCount: number;
  startedAt: string;
  lastState: Obj;
  /** The pod's terminationGracePeriodSeconds, to stop the run when the pod is gone from the API too. */
  graceSeconds: number;
  /** The cgroup folders of the run (removed once it is over). */
  cgroups: string[];
  /** The run's stdin FIFO (`${prefix}.stdin`) and how long it stays open, for a container with spec.stdin. */
  stdin?: "keep" | "once";
}

/** The run's process as the shim recorded it; starttimes are /proc/<pid>/stat's field 22 (clock ticks since boot). */
export interface PidRecord { pid: number; start: string; shimPid: number; shimStart: string }

export interface ExitRecord { exitCode: number; oomKilled: boolean; finishedAt: Date; startError?: string }

export const podDir = (rootDir: string, uid: string) => join(rootDir, "pods", uid);
export const containerDir = (rootDir: string, uid: string, name: string) => join(podDir(rootDir, uid), "containers", name);
const recordPath = (dir: string) => join(dir, "record.json");
/** The prefix of a run's files: <dir>/<hex id>. */
export const runPrefix = (dir: string, containerID: string) => join(dir, containerID.slice(containerID.indexOf("://") + 3));

/** Writes a run's record (off the event loop), whole or not at all. */
export async function writeRecord(dir: string, r: ContainerRecord): Promise<void> {
  await mkdir(dir, { recursive: true });
  const tmp = `${recordPath(dir)}.tmp`;
  await writeFile(tmp, JSON.stringify(r));
  await rename(tmp, recordPath(dir));
}

export function readRecord(dir: string): ContainerRecord | undefined {
  try {
    return JSON.parse(readFileSync(recordPath(dir), "utf8"));
  } catch {
    return undefined;
  }
}

/** A pod's recorded containers: container folder → record. */
export function podRecords(rootDir: string, uid: string): Map<string, ContainerRecord> {
  const out = new Map<string, ContainerRecord>();
  for (const name of dirEntries(join(podDir(rootDir, uid), "containers"))) {
    const dir = containerDir(rootDir, uid, name);
    const r = readRecord(dir);
    if (r) out.set(dir, r);
  }
  return out;
}

function dirEntries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A whole line of a file the shim wrote (a partial write reads as not yet there). */
function line(path: string): string[] | undefined {
  try {
    const s = readFileSync(path, "utf8");
    return s.endsWith("\n") ? s.trim().split(" ") : undefined;
  } catch {
    return undefined;
  }
}

export function readPid(prefix: string): PidRecord | undefined {
  const f = line(`${prefix}.pid`);
  if (!f || f.length < 4) return undefined;
  return { pid: Number(f[0]), start: f[1], shimPid: Number(f[2]), shimStart: f[3] };
}

export function readExit(prefix: string): ExitRecord | undefined {
  const f = line(`${prefix}.exit`);
  if (!f) return undefined;
  let startError: string | undefined;
  try { startError = readFileSync(`${prefix}.err`, "utf8").trim(); } catch { /* it started */ }
  return { exitCode: Number(f[0]), oomKilled: f[1] === "1", finishedAt: statSync(`${prefix}.exit`).mtime, startError };
}

export function removeRun(prefix: string): void {
  for (const ext of [".pid", ".exit", ".err", ".stdin"]) rmSync(`${prefix}${ext}`, { force: true });
}

/** /proc/<pid>/stat's start time, or undefined when no such process runs (a zombie does not). */
export function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return f[0] === "Z" ? undefined : f[19];
  } catch {
    return undefined;
  }
}

/** True while `pid` is the very process recorded (same start time: not a recycled pid). */
export const isSame = (pid: number, start: string) => procStart(pid) === start;
