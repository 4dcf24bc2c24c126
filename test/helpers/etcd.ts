// Starts real etcd processes (Debian's etcd-server, /usr/bin/etcd) on free loopback ports in temp dirs,
// for the etcd Store tests, the API suites on etcd, and the fault tests (3-member cluster).
import { type Subprocess, spawnSync } from "bun";
import { track, tempDir } from "./processes.ts";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export interface EtcdProcess {
  /** Client URLs, e.g. ["http://127.0.0.1:40123"]. */
  endpoints: string[];
  dataDir: string;
  /** The etcd process id (benchmarks read its CPU time). */
  pid: number;
  /** Graceful stop (SIGTERM), then remove the data dir. */
  stop(): Promise<void>;
  /** SIGKILL (crash); the data dir is removed. */
  kill(): Promise<void>;
}

export interface EtcdMember {
  name: string;
  /** This member's client URL. */
  endpoint: string;
  dataDir: string;
  running(): boolean;
  /** Stop this member (SIGTERM, or SIGKILL with hard=true); its data dir is kept so start() brings it back. */
  stop(hard?: boolean): Promise<void>;
  /** Start it again from its data dir (no-op when running). Does not wait for the cluster to have quorum. */
  start(): Promise<void>;
}

export interface EtcdCluster {
  endpoints: string[];
  members: EtcdMember[];
  /** Stop every member (SIGKILL: members stopping together would wait on each other) and remove the data dirs. */
  stop(): Promise<void>;
  /** The same as stop(). */
  kill(): Promise<void>;
}

export interface EtcdOptions {
  /** Path of the etcd binary (default $ETCD_BIN, else `etcd` on PATH, else /usr/bin/etcd). */
  bin?: string;
  /** Milliseconds to wait for health (default 20 s). */
  timeoutMs?: number;
  /** Extra command-line flags. */
  extraArgs?: string[];
}

/** The etcd binary, or a clear error when it is not installed. */
export function etcdBinary(bin?: string): string {
  const candidates = [bin, process.env.ETCD_BIN, Bun.which("etcd") ?? undefined, "/usr/bin/etcd", "/usr/local/bin/etcd"];
  for (const c of candidates) if (c && existsSync(c)) return c;
  throw new Error(
    "etcd is not installed: the etcd tests need a real etcd v3 server. Install it with " +
      "`apt-get update && apt-get install -y etcd-server` (Debian), or set ETCD_BIN to its path.",
  );
}

/** True when an etcd binary can be found. */
export function etcdAvailable(): boolean {
  try { etcdBinary(); return true; } catch { return false; }
}

/** A free TCP port on 127.0.0.1 (bound then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function healthy(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    if (!res.ok) return false;
    const body = (await res.json()) as { health?: string };
    return body.health === "true";
  } catch {
    return false;
  }
}

function logTail(file: string): string {
  try {
    const text = readFileSync(file, "utf8");
    return text.split("\n").slice(-25).join("\n");
  } catch {
    return "(no log)";
  }
}

interface MemberSpec { name: string; clientPort: number; peerPort: number; dataDir: string }

class Member implements EtcdMember {
  proc: Subprocess | null = null;
  readonly endpoint: string;
  readonly logFile: string;
  constructor(readonly spec: MemberSpec, readonly bin: string, readonly args: string[]) {
    this.endpoint = `http://127.0.0.1:${spec.clientPort}`;
    this.logFile = `${spec.dataDir}.log`;
  }
  get name() { return this.spec.name; }
  get dataDir() { return this.spec.dataDir; }
  running() { return this.proc !== null && this.proc.exitCode === null && this.proc.signalCode === null; }

  async start() {
    if (this.running()) return;
    const log = Bun.file(this.logFile);
    const proc = Bun.spawn([this.bin, ...this.args], {
      stdin: "ignore",
      stdout: log,
      stderr: log,
    });
    this.proc = proc;
    track(proc);
  }

  async stop(hard = false) {
    const p = this.proc;
    if (!p) return;
    this.proc = null;
    if (p.exitCode === null && p.signalCode === null) {
      p.kill(hard ? "SIGKILL" : "SIGTERM");
      const t = setTimeout(() => { try { p.kill("SIGKILL"); } catch { /* gone */ } }, 5000);
      await p.exited;
      clearTimeout(t);
    }
  }
}

function memberArgs(spec: MemberSpec, cluster: MemberSpec[], token: string, extra: string[]): string[] {
  const peer = (s: MemberSpec) => `http://127.0.0.1:${s.peerPort}`;
  const client = `http://127.0.0.1:${spec.clientPort}`;
  return [
    `--name=${spec.name}`,
    `--data-dir=${spec.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer(spec)}`,
    `--initial-advertise-peer-urls=${peer(spec)}`,
    `--initial-cluster=${cluster.map((s) => `${s.name}=${peer(s)}`).join(",")}`,
    `--initial-cluster-state=new`,
    `--initial-cluster-token=${token}`,
    "--logger=zap",
    "--log-level=warn",
    ...extra,
  ];
}

async function waitHealthy(members: Member[], timeoutMs: number, need: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = (await Promise.all(members.map((m) => healthy(m.endpoint)))).filter(Boolean).length;
    if (ok >= need) return;
    const dead = members.find((m) => m.proc && m.proc.exitCode !== null);
    if (dead || Date.now() > deadline) {
      const why = dead ? `exited with code ${dead.proc!.exitCode}` : `not healthy after ${timeoutMs} ms`;
      const m = dead ?? members[0];
      throw new Error(`etcd member ${m.name} ${why}; log tail:\n${logTail(m.logFile)}`);
    }
    await sleep(100);
  }
}

async function startMembers(n: number, opts: EtcdOptions): Promise<{ root: string; members: Member[] }> {
  const bin = etcdBinary(opts.bin);
  const root = tempDir("kite-etcd-");
  const specs: MemberSpec[] = [];
  const used = new Set<number>();
  const port = async () => {
    for (;;) {
      const p = await freePort();
      if (!used.has(p)) { used.add(p); return p; }
    }
  };
  for (let i = 0; i < n; i++) {
    specs.push({ name: `m${i}`, clientPort: await port(), peerPort: await port(), dataDir: join(root, `m${i}`) });
  }
  const token = `kite-${process.pid}-${Date.now()}`;
  const members = specs.map((s) => new Member(s, bin, memberArgs(s, specs, token, opts.extraArgs ?? [])));
  for (const m of members) await m.start();
  try {
    await waitHealthy(members, opts.timeoutMs ?? 20_000, n);
  } catch (e) {
    for (const m of members) await m.stop(true);
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
  return { root, members };
}

/** Start one etcd on free loopback ports in a temp dir; resolves once it answers /health. */
export async function startEtcd(opts: EtcdOptions = {}): Promise<EtcdProcess> {
  const { root, members } = await startMembers(1, opts);
  const m = members[0];
  const end = async (hard: boolean) => {
    await m.stop(hard);
    rmSync(root, { recursive: true, force: true });
  };
  return { endpoints: [m.endpoint], dataDir: m.dataDir, pid: m.proc!.pid, stop: () => end(false), kill: () => end(true) };
}

/** Start a 3-member (or n-member) etcd cluster on loopback; resolves once every member answers /health. */
export async function startEtcdCluster(n = 3, opts: EtcdOptions = {}): Promise<EtcdCluster> {
  const { root, members } = await startMembers(n, opts);
  const end = async () => {
    // Members stopping together wait on each other for leadership transfer; the data goes anyway, so kill.
    await Promise.all(members.map((m) => m.stop(true)));
    rmSync(root, { recursive: true, force: true });
  };
  return { endpoints: members.map((m) => m.endpoint), members, stop: end, kill: end };
}

/** `etcdctl` path when installed (Debian's etcd-client), else null. */
export function etcdctlBinary(): string | null {
  const p = Bun.which("etcdctl") ?? (existsSync("/usr/bin/etcdctl") ? "/usr/bin/etcdctl" : null);
  if (!p) return null;
  return spawnSync([p, "version"]).exitCode === 0 ? p : null;
}
