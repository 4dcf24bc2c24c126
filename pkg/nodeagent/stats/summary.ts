// The kubelet's Summary API (GET /stats/summary, upstream's statsapi.Summary): the node's cpu, memory and
// root filesystem, and per pod and running container their cpu (usageNanoCores, usageCoreNanoSeconds) and
// memory (usageBytes, workingSetBytes, rssBytes). Rates are over the previous read of the same thing at
// least a second before (cadvisor's come from its housekeeping; here they come from the reads themselves).
import { statfsSync } from "node:fs";
import type { Obj } from "../node.ts";
import type { PodWorker } from "../podworker.ts";
import { containerDir, readPid, readRecord, runPrefix } from "../runtime/records.ts";
import { type Usage, cgroupUsage, nodeUsage, podCgroupUsage, processGroupUsage } from "./usage.ts";

const MIN_RATE_WINDOW_MS = 1000;

/** The last cumulative cpu time of each thing measured, and the rate it gave. */
export class CpuRates {
  private readonly last = new Map<string, { t: number; ns: number; rate?: number }>();

  /** nanocores over the window since the last read of `key` (undefined for the first read). */
  rate(key: string, ns: number, t: number): number | undefined {
    const e = this.last.get(key);
    if (!e || ns < e.ns) {
      this.last.set(key, { t, ns });
      return undefined;
    }
    if (t - e.t < MIN_RATE_WINDOW_MS) return e.rate;
    const rate = Math.round(((ns - e.ns) / (t - e.t)) * 1000);
    this.last.set(key, { t, ns, rate });
    return rate;
  }

  /** Forgets what is no longer measured. */
  keep(keys: Set<string>): void {
    for (const k of this.last.keys()) if (!keys.has(k)) this.last.delete(k);
  }
}

const cpuStats = (time: string, u: Usage, nanoCores: number | undefined) => ({
  time, ...(nanoCores === undefined ? {} : { usageNanoCores: nanoCores }), usageCoreNanoSeconds: Math.round(u.cpuNs),
});
const memoryStats = (time: string, u: Usage, extra: Obj = {}) => ({ time, ...extra, usageBytes: u.usageBytes, workingSetBytes: u.workingSetBytes, rssBytes: u.rssBytes, pageFaults: 0, majorPageFaults: 0 });

function sum(us: Usage[]): Usage {
  return us.reduce((a, u) => ({ cpuNs: a.cpuNs + u.cpuNs, usageBytes: a.usageBytes + u.usageBytes, workingSetBytes: a.workingSetBytes + u.workingSetBytes, rssBytes: a.rssBytes + u.rssBytes }),
    { cpuNs: 0, usageBytes: 0, workingSetBytes: 0, rssBytes: 0 });
}

/** A running container's usage: its run's cgroups, else its process group. */
function containerUsage(rootDir: string, uid: string, name: string): { usage: Usage; runDirs: string[]; id: string } | undefined {
  const dir = containerDir(rootDir, uid, name);
  const r = readRecord(dir);
  if (!r?.containerID) return undefined;
  const fromCgroups = r.cgroups?.length ? cgroupUsage(r.cgroups) : undefined;
  if (fromCgroups) return { usage: fromCgroups, runDirs: r.cgroups, id: r.containerID };
  const pid = readPid(runPrefix(dir, r.containerID));
  return pid ? { usage: processGroupUsage(pid.pid), runDirs: [], id: r.containerID } : undefined;
}

export function summary(nodeName: string, rootDir: string, workers: Iterable<PodWorker>, rates: CpuRates, startTime: string, now = Date.now()): Obj {
  const time = new Date(now).toISOString().replace(/\.\d+Z$/, "Z");
  const seen = new Set<string>();
  const rateOf = (key: string, u: Usage) => (seen.add(key), rates.rate(key, u.cpuNs, now));
  const pods: Obj[] = [];
  for (const w of workers) {
    const running = new Map<string, Obj>(w.containers.map((c) => c.status()).filter((s) => s.state?.running).map((s) => [s.name, s]));
    const containers: Obj[] = [], usages: Usage[] = [], runDirs: string[] = [];
    for (const [name, st] of running) {
      const c = containerUsage(rootDir, w.uid, name);
      if (!c) continue;
      usages.push(c.usage);
      runDirs.push(...c.runDirs);
      containers.push({ name, startTime: st.state.running.startedAt, cpu: cpuStats(time, c.usage, rateOf(c.id, c.usage)), memory: memoryStats(time, c.usage) });
    }
    if (!containers.length) continue;
    const pod = (runDirs.length && podCgroupUsage(runDirs)) || sum(usages);
    const m = w.pod.metadata;
    pods.push({
      podRef: { name: m.name, namespace: m.namespace, uid: m.uid }, startTime: w.pod.status?.startTime ?? containers[0].startTime,
      containers, cpu: cpuStats(time, pod, rateOf(`pod/${m.uid}`, pod)), memory: memoryStats(time, pod), volume: [],
    });
  }
  const n = nodeUsage();
  const fs = statfsSync(rootDir);
  rates.keep(seen.add("node"));
  return {
    node: {
      nodeName, systemContainers: [], startTime,
      cpu: cpuStats(time, n, rates.rate("node", n.cpuNs, now)),
      memory: memoryStats(time, n, { availableBytes: n.availableBytes }),
      fs: {
        time, availableBytes: fs.bavail * fs.bsize, capacityBytes: fs.blocks * fs.bsize, usedBytes: (fs.blocks - fs.bfree) * fs.bsize,
        inodesFree: fs.ffree, inodes: fs.files, inodesUsed: fs.files - fs.ffree,
      },
    },
    pods,
  };
}
