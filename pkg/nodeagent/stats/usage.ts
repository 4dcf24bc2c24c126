// What the resource metrics are made of: cumulative cpu time and memory of a container run (its cgroups,
// v1 or v2; without cgroups the /proc entries of its process group), of a pod (the pod's cgroup, else the
// sum of its containers), and of the node (/proc/stat, /proc/meminfo).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface Usage {
  /** Cumulative cpu time in nanoseconds (usageCoreNanoSeconds). */
  cpuNs: number;
  usageBytes: number;
  workingSetBytes: number;
  rssBytes: number;
}

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux build that matters here). */
const USER_HZ = 100;
const PAGE = 4096;

const read = (f: string) => { try { return readFileSync(f, "utf8"); } catch { return undefined; } };
const num = (f: string) => { const t = read(f); return t === undefined ? undefined : Number(t.trim()); };

/** `key value` lines (memory.stat, cpu.stat, meminfo) as a map; meminfo's kB are turned into bytes. */
function keyed(text: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of (text ?? "").split("\n")) {
    const m = /^([\w()]+):?\s+(\d+)(\s+kB)?/.exec(l);
    if (m) out.set(m[1], Number(m[2]) * (m[3] ? 1024 : 1));
  }
  return out;
}

/** working set as cadvisor counts it: usage less the inactive file cache, never below zero. */
const workingSet = (usage: number, inactiveFile: number) => Math.max(0, usage - inactiveFile);

/** The usage of one cgroup, from its folders (one per v1 hierarchy, or the one v2 folder); undefined when unreadable. */
export function cgroupUsage(dirs: string[]): Usage | undefined {
  const v1 = (c: string) => dirs.find((d) => d.includes(`/sys/fs/cgroup/${c}/`));
  const acct = v1("cpuacct"), mem = v1("memory");
  if (acct && mem) {
    const cpuNs = num(join(acct, "cpuacct.usage")), usage = num(join(mem, "memory.usage_in_bytes"));
    if (cpuNs === undefined || usage === undefined) return undefined;
    const stat = keyed(read(join(mem, "memory.stat")));
    return { cpuNs, usageBytes: usage, workingSetBytes: workingSet(usage, stat.get("total_inactive_file") ?? 0), rssBytes: stat.get("total_rss") ?? 0 };
  }
  const v2 = dirs.find((d) => read(join(d, "cpu.stat")) !== undefined && read(join(d, "memory.current")) !== undefined);
  if (!v2) return undefined;
  const cpu = keyed(read(join(v2, "cpu.stat"))), usage = num(join(v2, "memory.current"))!;
  const stat = keyed(read(join(v2, "memory.stat")));
  return { cpuNs: (cpu.get("usage_usec") ?? 0) * 1000, usageBytes: usage, workingSetBytes: workingSet(usage, stat.get("inactive_file") ?? 0), rssBytes: stat.get("anon") ?? 0 };
}

/** The pod's cgroup: the parent of its runs' folders. */
export const podCgroupUsage = (runDirs: string[]) => cgroupUsage([...new Set(runDirs.map(dirname))]);

/** Without cgroups: the processes of a process group, from /proc (the time of exited children is lost). */
export function processGroupUsage(pgid: number): Usage {
  let ticks = 0, rss = 0;
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    const stat = read(`/proc/${e}/stat`);
    if (!stat) continue;
    // the fields after the command's closing parenthesis: state is field 3, pgrp 5, utime 14, stime 15, rss 24
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(f[2]) !== pgid) continue;
    ticks += Number(f[11]) + Number(f[12]);
    rss += Number(f[21]) * PAGE;
  }
  return { cpuNs: (ticks * 1e9) / USER_HZ, usageBytes: rss, workingSetBytes: rss, rssBytes: rss };
}

/** The whole node: the busy time of every cpu, and memory as the root cgroup sees it (from /proc/meminfo). */
export function nodeUsage(): Usage & { availableBytes: number; capacityBytes: number } {
  const cpu = (read("/proc/stat") ?? "").split("\n")[0].split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: all but idle and iowait are busy
  const busy = [0, 1, 2, 5, 6, 7].reduce((a, i) => a + (cpu[i] || 0), 0);
  const m = keyed(read("/proc/meminfo"));
  const total = m.get("MemTotal") ?? 0, free = m.get("MemFree") ?? 0;
  const usage = total - free;
  return {
    cpuNs: (busy * 1e9) / USER_HZ, usageBytes: usage, workingSetBytes: workingSet(usage, m.get("Inactive(file)") ?? 0),
    rssBytes: m.get("AnonPages") ?? 0, availableBytes: m.get("MemAvailable") ?? free, capacityBytes: total,
  };
}
