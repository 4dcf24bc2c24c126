// The fuzz suite's monitors (test/helpers/fuzzrun.ts), on a worker thread of their own: the suite's main
// thread is busy building and sending hostile input, and must delay neither the /readyz probes (their
// latency must be the server's) nor the watch reads (a watcher must be cut off only if the server cannot
// keep up with a reader that keeps up). Also samples the server's RSS and kills it past its limit.
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { exchange, requestBytes } from "./rawhttp.ts";

declare const self: Worker;

interface WatchSide { events: number; errors: string[]; closed?: string }
/** One collection watched twice from the same revision, as JSON and as protobuf, to compare. */
export interface WatchPair { path: string; json: WatchSide; pb: WatchSide }

/** `session` numbers the servers: what a monitor says about a server already replaced is ignored. */
export type ToMonitor =
  | { type: "start"; session: number; port: number; ca: string; pid: number; rssLimitMb: number; watches: { path: string; rv: string }[] }
  | { type: "stop" };
export type FromMonitor = { session: number } & (
  | { type: "probe"; id: number; sent: true }
  | { type: "probe"; id: number; sent: false; ms: number; status: number }
  | { type: "state"; rssMb: number; watches: WatchPair[] }
  | { type: "killed"; rssMb: number });

const PROTOBUF = "application/vnd.kubernetes.protobuf";
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Counts the events of a JSON watch (one per line) and keeps the first bytes of ERROR ones. Only each
 * line's head is kept, so multi-megabyte events cost no copying.
 */
function lineCounter(side: WatchSide): (b: Buffer) => void {
  let head = "";
  let inLine = false;
  return (b) => {
    for (let at = 0; at < b.length;) {
      const nl = b.indexOf(10, at);
      const end = nl < 0 ? b.length : nl;
      if (end > at) inLine = true;
      if (head.length < 300) head += b.subarray(at, Math.min(end, at + 300 - head.length)).toString("latin1");
      if (nl < 0) break;
      if (inLine) { // the blank line that starts the stream is no event
        side.events++;
        if (head.startsWith(`{"type":"ERROR"`)) side.errors.push(head);
      }
      head = "";
      inLine = false;
      at = nl + 1;
    }
  };
}

/** The same for a protobuf watch: frames of a 4-byte length and a WatchEvent whose field 1 is the type. */
function frameCounter(side: WatchSide): (b: Buffer) => void {
  let len = Buffer.alloc(0);
  let left = -1; // bytes of the current frame still to come; -1 while reading its length
  let head = Buffer.alloc(0);
  return (b) => {
    for (let at = 0; at < b.length;) {
      if (left < 0) {
        const take = Math.min(4 - len.length, b.length - at);
        len = Buffer.concat([len, b.subarray(at, at + take)]);
        at += take;
        if (len.length === 4) { left = len.readUInt32BE(0); len = Buffer.alloc(0); head = Buffer.alloc(0); }
      } else {
        const take = Math.min(left, b.length - at);
        if (head.length < 300) head = Buffer.concat([head, b.subarray(at, at + Math.min(take, 300 - head.length))]);
        at += take;
        left -= take;
      }
      if (left === 0) {
        side.events++;
        if (head[0] === 0x0a && head.subarray(2, 2 + head[1]).toString() === "ERROR") side.errors.push(head.toString("latin1").replace(/[^\x20-\x7e]+/g, " "));
        left = -1;
      }
    }
  };
}

/** Everything watching one server; replaced when the suite starts a fresh server. */
class Session {
  private stopped = false;
  private sockets: Socket[] = [];
  private timers: Timer[] = [];
  private watches: WatchPair[] = [];
  private probeId = 0;

  private post = (m: DistributiveOmit<FromMonitor, "session">) => self.postMessage({ ...m, session: this.o.session });

  constructor(private o: Extract<ToMonitor, { type: "start" }>) {
    for (const w of o.watches) {
      const pair: WatchPair = { path: w.path, json: { events: 0, errors: [] }, pb: { events: 0, errors: [] } };
      this.watches.push(pair);
      for (const [side, accept] of [[pair.json, "application/json"], [pair.pb, PROTOBUF]] as const) {
        void exchange({
          port: o.port, ca: o.ca, timeoutMs: 86_400_000, onBody: accept === PROTOBUF ? frameCounter(side) : lineCounter(side),
          onSocket: (sock) => { this.sockets.push(sock); },
          parts: [requestBytes("GET", `${w.path}?watch=1&resourceVersion=${w.rv}&timeoutSeconds=3600`, { Accept: accept }, undefined, { close: false })],
        }).then((x) => {
          if (!this.stopped) side.closed = `${x.responses[0] ? `status ${x.responses[0].status}` : "no answer"}${x.error ? `, ${x.error}` : ""}`;
        });
      }
    }
    let killed = false;
    this.timers.push(setInterval(() => {
      const rss = this.rssMb();
      if (rss > o.rssLimitMb && !killed) {
        killed = true;
        process.kill(o.pid, 9);
        this.post({ type: "killed", rssMb: rss });
      }
    }, 100));
    this.timers.push(setInterval(() => this.post({ type: "state", rssMb: this.rssMb(), watches: this.watches }), 200));
    void this.probe();
  }

  private rssMb(): number {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${this.o.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  }

  /** /readyz every ~100 ms, each probe reported when sent and when answered. */
  private async probe() {
    while (!this.stopped) {
      const id = ++this.probeId;
      this.post({ type: "probe", id, sent: true });
      const t0 = performance.now();
      let status = 0;
      try {
        const r = await fetch(`https://127.0.0.1:${this.o.port}/readyz`, { tls: { ca: this.o.ca }, signal: AbortSignal.timeout(120_000) } as RequestInit);
        await r.text();
        status = r.status;
      } catch { /* status 0: no answer */ }
      const ms = performance.now() - t0;
      if (this.stopped) return;
      this.post({ type: "probe", id, sent: false, ms, status });
      await Bun.sleep(Math.max(0, 100 - ms));
    }
  }

  stop() {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    for (const s of this.sockets) s.destroy();
  }
}

let session: Session | undefined;
self.onmessage = (e: MessageEvent<ToMonitor>) => {
  session?.stop();
  session = e.data.type === "start" ? new Session(e.data) : undefined;
};
