// What the eviction manager measures: the host's eviction signals (upstream's summary-API figures, read here
// from /proc and the root dir's filesystem; there is no separate image filesystem, so imagefs is nodefs),
// and the memory the processes of a pod use.
import { readdirSync, readFileSync, statfsSync } from "node:fs";
import type { Signal } from "../config/thresholds.ts";

export interface Observation { available: number; capacity: number }
export type Observations = Partial<Record<Signal, Observation>>;

const PAGE_SIZE = 4096;

function meminfo(): { total: number; available: number } {
  const text = readFileSync("/proc/meminfo", "utf8");
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0) * 1024;
  return { total: kb("MemTotal"), available: kb("MemAvailable") };
}

const numeric = (name: string) => name.charCodeAt(0) >= 48 && name.charCodeAt(0) <= 57;

/** The host's signals now; `podMemory` is what the pods use, for allocatableMemory.available. */
export function observe(rootDir: string, allocatableMemory: number, podMemory: number): Observations {
  const mem = meminfo();
  const fs = statfsSync(rootDir);
  const disk = { available: fs.bavail * fs.bsize, capacity: fs.blocks * fs.bsize };
  const inodes = { available: fs.ffree, capacity: fs.files };
  const pidMax = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim());
  const procs = readdirSync("/proc").filter(numeric).length;
  return {
    "memory.available": { available: mem.available, capacity: mem.total },
    "allocatableMemory.available": { available: Math.max(0, allocatableMemory - podMemory), capacity: allocatableMemory },
    "nodefs.available": disk,
    "nodefs.inodesFree": inodes,
    "imagefs.available": disk,
    "imagefs.inodesFree": inodes,
    "pid.available": { available: pidMax - procs, capacity: pidMax },
  };
}

/** Resident memory by process group, for every group in `groups` (one pass over /proc). */
export function memoryByGroup(groups: Set<number>): Map<number, number> {
  const out = new Map<number, number>();
  if (!groups.size) return out;
  for (const name of readdirSync("/proc")) {
    if (!numeric(name)) continue;
    let stat: string;
    try { stat = readFileSync(`/proc/${name}/stat`, "utf8"); } catch { continue; }
    // fields after the command's closing parenthesis: state ppid pgrp ... rss is the 24th field overall
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const pgrp = Number(f[2]);
    if (!groups.has(pgrp)) continue;
    out.set(pgrp, (out.get(pgrp) ?? 0) + Number(f[21]) * PAGE_SIZE);
  }
  return out;
}
