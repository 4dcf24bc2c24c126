// A collection of big ConfigMaps, the representations a LIST of it is read in, and a /readyz prober:
// what the large-list regression test and benchmark (issue 12, finding 11) share.
import { readFileSync } from "node:fs";
import type { TestServer } from "./server.ts";

export const PB = "application/vnd.kubernetes.protobuf";
export const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/** The ways a client reads a LIST: Accept, Accept-Encoding, query. */
export const REPS: { name: string; accept: string; encoding: string; query?: string }[] = [
  { name: "JSON", accept: "application/json", encoding: "identity" },
  { name: "JSON+gzip", accept: "application/json", encoding: "gzip" },
  { name: "YAML", accept: "application/yaml", encoding: "identity" },
  { name: "YAML+gzip", accept: "application/yaml", encoding: "gzip" },
  { name: "protobuf", accept: PB, encoding: "identity" },
  { name: "protobuf+gzip", accept: PB, encoding: "gzip" },
  { name: "Table+gzip (includeObject=Object)", accept: TABLE_ACCEPT, encoding: "gzip", query: "?includeObject=Object" },
];

/** Config-file-like text: lines of settings, compressible about as much as real config is. */
export function configText(seed: number, bytes: number): string {
  const lines: string[] = [];
  let n = 0, x = seed * 2654435761 >>> 0;
  while (n < bytes) {
    x = (x * 1103515245 + 12345) >>> 0;
    const line = `setting.${seed}.${lines.length} = ${x.toString(36)}-${(x ^ 0x5bd1e995).toString(16)} # note ${x % 97}`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join("\n");
}

/** A ConfigMap of about `kb` KB: keys of 16 KB of multi-line text, plus a few short values. */
export function bigConfigMap(i: number, kb: number) {
  const data: Record<string, string> = { "mode": "yes", "replicas": "3", "enabled": "true" };
  for (let k = 0; k * 16 < kb; k++) data[`file-${k}.conf`] = configText(i * 1000 + k, 16 * 1024);
  return { metadata: { name: `big-${String(i).padStart(4, "0")}`, labels: { app: "big", n: String(i) } }, data };
}

/** Creates `count` big ConfigMaps in ns (a few at a time). */
export async function createBig(s: TestServer, ns: string, count: number, kb: number, parallel = 4) {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) {
      const i = next++;
      const r = await s.req(path, { method: "POST", json: bigConfigMap(i, kb) });
      if (r.status !== 201) throw new Error(`POST ${path} big-${i}: HTTP ${r.status}: ${(await r.text()).slice(0, 300)}`);
      await r.arrayBuffer();
    }
  }));
}

/**
 * Probes /readyz back to back (with `gapMs` between) until stopped: the latencies in ms, and with the
 * server's pid the CPU time it used during each probe (`cpu`) — on a loaded machine a probe also waits
 * for a CPU, but only work that holds the event loop makes the server itself busy for the whole wait.
 */
export function probeReadyz(s: TestServer, gapMs = 10, pid?: number) {
  const times: number[] = [], cpu: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const t = performance.now(), c = pid ? cpuMs(pid) : 0;
      const r = await s.req("/readyz");
      await r.text();
      if (r.status !== 200) throw new Error(`/readyz answered ${r.status}`);
      times.push(performance.now() - t);
      if (pid) cpu.push(cpuMs(pid) - c);
      await Bun.sleep(gapMs);
    }
  })();
  return {
    times,
    cpu,
    async stop(): Promise<number[]> {
      running = false;
      await done;
      return times;
    },
  };
}

/** CPU time (user + system, every thread) a process has used, in ms, from /proc (10 ms ticks). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

/**
 * Probe latencies with the probes a stall kept from being sent: one probe that waited L ms stands for
 * the probes due every `intervalMs` meanwhile (L - interval, L - 2·interval, …), as HdrHistogram corrects
 * for coordinated omission; else a 5 s stall would be a single sample among hundreds and vanish from p99.
 */
export function withOmitted(times: number[], intervalMs: number): number[] {
  const out: number[] = [];
  for (const t of times) for (let v = t; v === t || v >= intervalMs; v -= intervalMs) out.push(v);
  return out;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

/** Resident set size of a process in MB, from /proc. */
export function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}
