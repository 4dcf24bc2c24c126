// Resource limits through cgroups, under a `kite` folder inside the agent's own cgroup (so a supervisor
// that limits the agent limits its pods too): one cgroup per pod (pids.max from --pod-max-pids) and one
// per container run below it (memory limit: the kernel OOM-kills past it; cpu limit: a CFS quota over
// upstream's 100 ms period). cgroup v1 (memory, cpu, pids hierarchies at /sys/fs/cgroup/<controller>,
// and cpuacct where mounted, which only counts: the resource metrics' cpu time) and v2 (unified, when
// /sys/fs/cgroup/cgroup.controllers exists).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { access, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

const ROOT = "/sys/fs/cgroup";
const CONTROLLERS = ["memory", "cpu", "pids"] as const;
export const CPU_PERIOD_US = 100_000;
/** The smallest quota the kernel takes (upstream's MinQuotaPeriod). */
const MIN_QUOTA_US = 1000;

export interface Limits { memoryBytes?: number; cpuMilli?: number }

/** The files and values that enforce `limits` in a container's cgroup(s), as [controller, file, value]. */
export function limitFiles(v2: boolean, l: Limits, swapFiles: boolean): [typeof CONTROLLERS[number], string, string][] {
  const out: [typeof CONTROLLERS[number], string, string][] = [];
  if (l.memoryBytes !== undefined) {
    const bytes = String(Math.floor(l.memoryBytes));
    if (v2) out.push(["memory", "memory.max", bytes], ["memory", "memory.swap.max", "0"]);
    else {
      out.push(["memory", "memory.limit_in_bytes", bytes]);
      // no swapping past the limit: upstream's containers get memory-swap = memory
      if (swapFiles) out.push(["memory", "memory.memsw.limit_in_bytes", bytes]);
    }
  }
  if (l.cpuMilli !== undefined) {
    const quota = String(Math.max(MIN_QUOTA_US, Math.ceil((l.cpuMilli * CPU_PERIOD_US) / 1000)));
    if (v2) out.push(["cpu", "cpu.max", `${quota} ${CPU_PERIOD_US}`]);
    else out.push(["cpu", "cpu.cfs_period_us", String(CPU_PERIOD_US)], ["cpu", "cpu.cfs_quota_us", quota]);
  }
  return out;
}

export class Cgroups {
  private constructor(readonly v2: boolean, private readonly bases: Map<string, string>, private readonly podMaxPids: number) {}

  /** The agent's cgroups, or why it may not create any (then it runs without limits). */
  static open(podMaxPids: number): Cgroups | string {
    const v2 = existsSync(join(ROOT, "cgroup.controllers"));
    let own: Map<string, string>;
    try {
      own = ownCgroups();
    } catch (e) {
      return `cannot read /proc/self/cgroup: ${(e as Error).message}`;
    }
    const bases = new Map<string, string>();
    try {
      if (v2) {
        const base = join(ROOT, own.get("") ?? "/", "kite");
        mkdirSync(base, { recursive: true });
        const enable = `+${CONTROLLERS.join(" +")}`;
        writeFileSync(join(base, "..", "cgroup.subtree_control"), enable);
        writeFileSync(join(base, "cgroup.subtree_control"), enable);
        for (const c of CONTROLLERS) bases.set(c, base);
      } else {
        for (const c of CONTROLLERS) {
          if (!existsSync(join(ROOT, c))) return `cgroup v1 controller ${c} is not mounted at ${join(ROOT, c)}`;
        }
        // cpuacct only counts (the resource metrics' cpu time): used where it is mounted
        for (const c of [...CONTROLLERS, ...(existsSync(join(ROOT, "cpuacct")) ? ["cpuacct"] : [])]) {
          const base = join(ROOT, c, own.get(c) ?? "/", "kite");
          mkdirSync(base, { recursive: true });
          bases.set(c, base);
        }
      }
    } catch (e) {
      return `cgroups are not writable: ${(e as Error).message}`;
    }
    return new Cgroups(v2, bases, podMaxPids);
  }

  /** The distinct folders of a pod (one per hierarchy in v1, one in v2). */
  private podDirs(uid: string): [string, string][] {
    return [...this.bases].map(([c, base]) => [c, join(base, `pod${uid}`)]);
  }

  /**
   * Creates the pod's and a container run's cgroups with their limits; returns the run's folders to join.
   * Off the event loop (a cgroup's mkdir waits for the kernel's cgroup lock, which a burst of starting and
   * ending containers holds), every hierarchy at once.
   */
  async createRun(uid: string, runId: string, limits: Limits): Promise<string[]> {
    // the pod's folders (v2's one holds every controller) → their controllers
    const pods = new Map<string, string[]>();
    for (const [c, pod] of this.podDirs(uid)) pods.set(pod, [...(pods.get(pod) ?? []), c]);
    const dirs = new Map<string, string>();
    await Promise.all([...pods].map(async ([pod, controllers]) => {
      // the pod's cgroup is new when mkdir made it (a recursive mkdir answers the first folder it created)
      if (await mkdir(pod, { recursive: true })) {
        if (controllers.includes("pids") && this.podMaxPids > 0) await writeFile(join(pod, "pids.max"), String(this.podMaxPids));
        if (this.v2) await writeFile(join(pod, "cgroup.subtree_control"), `+${CONTROLLERS.join(" +")}`);
      }
      const run = join(pod, runId.slice(0, 12));
      await mkdir(run, { recursive: true });
      for (const c of controllers) dirs.set(c, run);
    }));
    const swap = await access(join(dirs.get("memory")!, "memory.memsw.limit_in_bytes")).then(() => true, () => false);
    // in order: v1 refuses a memory+swap limit below the memory limit (EINVAL), which the first write sets
    for (const [c, file, value] of limitFiles(this.v2, limits, swap)) await writeFile(join(dirs.get(c)!, file), value);
    return [...new Set(dirs.values())];
  }

  /** Removes cgroup folders and what is below them; false while some are still in use. */
  static removeRun(dirs: string[]): boolean {
    return dirs.map(removeTree).every(Boolean);
  }

  /** Removes every cgroup of the pod, retrying while its last processes finish exiting. */
  removePod(uid: string, tries = 10): void {
    const dirs = this.podDirs(uid).map(([, d]) => d);
    if (!Cgroups.removeRun(dirs) && tries > 1) setTimeout(() => this.removePod(uid, tries - 1), 200).unref();
  }
}

/** rmdir of a cgroup folder, its children first; false when it is still there (a process still exiting). */
function removeTree(dir: string): boolean {
  let entries: string[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return true;
  }
  for (const e of entries) removeTree(join(dir, e));
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/** This process's cgroup path per v1 controller ("" for v2's unified hierarchy). */
function ownCgroups(): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of readFileSync("/proc/self/cgroup", "utf8").trim().split("\n")) {
    const [, ctrls, path] = l.split(":");
    for (const c of ctrls.split(",")) out.set(c, path);
  }
  return out;
}
