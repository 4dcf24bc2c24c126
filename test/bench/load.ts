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

/** CPU seconds a process's main thread has used: a Bun server's JavaScript, without its JIT compiler's and GC's threads. */
export function mainThreadCpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
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

/**
 * A lean HTTPS/1.1 client for load generators: `n` kept-alive TLS connections, requests written as
 * bytes and answers framed by Content-Length (or a chunked body's last chunk), nothing decoded. It
 * spends a fraction of what fetch spends per request, so the cores the load generator shares with the
 * server under test go to the server. One request at a time per connection; callers wait for a free one.
 */
export class LeanHttps {
  private free: Conn[] = [];
  private waiting: ((c: Conn) => void)[] = [];
  private constructor(private host: string) {}

  /** `client`: a client certificate and key to present on every connection. */
  static async open(port: number, ca: string, n: number, client?: { cert: string; key: string }): Promise<LeanHttps> {
    const pool = new LeanHttps(`127.0.0.1:${port}`);
    // a few at a time: hundreds of simultaneous handshakes overflow the server's accept queue
    for (let i = 0; i < n; i += 16) {
      pool.free.push(...await Promise.all(Array.from({ length: Math.min(16, n - i) }, () => Conn.open(port, ca, client))));
    }
    return pool;
  }

  /** One request; resolves with the status and the raw body bytes (a chunked body stays framed). */
  async request(method: string, path: string, body = "", headers = ""): Promise<{ status: number; body: Buffer }> {
    const c = this.free.pop() ?? await new Promise<Conn>((r) => this.waiting.push(r));
    try {
      // JSON unless the caller's headers name another type (a patch)
      const type = /^content-type:/im.test(headers) ? "" : "Content-Type: application/json\r\n";
      const len = body ? `Content-Length: ${Buffer.byteLength(body)}\r\n${type}` : "";
      return await c.send(`${method} ${path} HTTP/1.1\r\nHost: ${this.host}\r\nAccept: application/json\r\n${len}${headers}\r\n${body}`);
    } finally {
      const w = this.waiting.shift();
      if (w) w(c); else this.free.push(c);
    }
  }

  close() { for (const c of this.free) c.close(); }
}

const CRLF2 = Buffer.from("\r\n\r\n");
const LAST_CHUNK = Buffer.from("\r\n0\r\n\r\n");

class Conn {
  private sock!: import("bun").Socket<undefined>;
  private buf: Buffer = Buffer.alloc(0);
  private pending: { resolve(r: { status: number; body: Buffer }): void; reject(e: Error): void } | null = null;
  private unsent: Buffer | null = null;

  static open(port: number, ca: string, client?: { cert: string; key: string }): Promise<Conn> {
    const c = new Conn();
    return new Promise((resolve, reject) => {
      Bun.connect({
        hostname: "127.0.0.1", port, tls: { ca, ...client },
        socket: {
          open(sock) { c.sock = sock; resolve(c); },
          data(_s, d) { c.data(d); },
          drain() { c.flush(); },
          close() { c.pending?.reject(new Error("connection closed")); },
          error(_s, e) { c.pending?.reject(e); reject(e); },
          connectError(_s, e) { reject(e); },
        },
      }).catch(reject);
    });
  }

  send(req: string): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.unsent = Buffer.from(req);
      this.flush();
    });
  }

  private flush() {
    if (!this.unsent) return;
    const n = this.sock.write(this.unsent);
    this.unsent = n < this.unsent.length ? this.unsent.subarray(Math.max(0, n)) : null;
  }

  private data(d: Buffer) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    const head = this.buf.indexOf(CRLF2);
    if (head < 0 || !this.pending) return this.keep(d);
    const header = this.buf.toString("latin1", 0, head).toLowerCase();
    const m = /\r\ncontent-length: *(\d+)/.exec(header);
    let end: number;
    if (m) end = head + 4 + Number(m[1]);
    else if (header.includes("transfer-encoding: chunked")) {
      const last = this.buf.indexOf(LAST_CHUNK, head + 2);
      end = last < 0 ? Infinity : last + LAST_CHUNK.length;
    } else end = head + 4;
    if (this.buf.length < end) return this.keep(d);
    const status = Number(header.slice(9, 12));
    const body = this.buf.subarray(head + 4, end);
    this.buf = this.buf.subarray(end);
    const p = this.pending;
    this.pending = null;
    p.resolve({ status, body });
  }

  /** Bytes kept for the next read are copied: the socket may reuse its read buffer. */
  private keep(d: Buffer) { if (this.buf === d) this.buf = Buffer.from(d); }

  close() { this.sock.end(); }
}
