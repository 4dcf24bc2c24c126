// Shared by the benchmarks: a closed-loop load generator, CPU accounting, and a progress line on stderr.
import { readFileSync } from "node:fs";

/** Runs `total` calls with `conc` workers; returns ops/s. */
export async function load(total: number, conc: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: conc }, async () => {
    for (let i = next++; i < total; i = next++) await op(i);
  }));
  return total / ((performance.now() - t0) / 1000);
}

export const progress = (s: string) => process.stderr.write(`  ${s}\n`);

/** CPU seconds a process has used (user + system), from /proc. */
export function cpuOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** CPU seconds this process has used. */
export function ownCpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** CPU seconds the hypervisor stole from this machine, all cores (figures are comparable only when ~0). */
export function stolenCpu(): number {
  return Number(readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/)[8]) / 100;
}

/** Runs `total` calls like `load`, and reports the CPU each named process spent per call (µs). */
export async function measured(total: number, conc: number, op: (i: number) => Promise<unknown>, pids: Record<string, number>) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuOf(pid)]));
  const client0 = ownCpu(), stolen0 = stolenCpu();
  const rate = await load(total, conc, op);
  const us = (s: number) => Math.round((s * 1e6) / total);
  const cpu: Record<string, number> = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, us(cpuOf(pid) - before[k])]));
  cpu.client = us(ownCpu() - client0);
  return { rate, cpu, stolen: stolenCpu() - stolen0 };
}
