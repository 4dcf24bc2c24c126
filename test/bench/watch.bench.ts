// Watch fan-out (issue 3 item 8): N watchers on one collection while writes arrive at a fixed rate;
// delay from write acknowledgement to delivery at every watcher, server RSS per idle watcher, and a
// LIST of 10,000 objects from the watch cache (resourceVersion=0).
// Run: KITE_BIN=dist/kite bun test/bench/watch.bench.ts   (WATCHERS=1000 RATE=500 SECONDS=10)
// Figures are only comparable on a quiet host: the run reports the CPU time the hypervisor stole.
import { readFileSync } from "node:fs";
import { startServer } from "../helpers/server.ts";
import { cpuOf, ownCpu, stolenCpu as stolen } from "./load.ts";

const WATCHERS = Number(process.env.WATCHERS ?? 1000);
const RATE = Number(process.env.RATE ?? 500);
const SECONDS = Number(process.env.SECONDS ?? 10);
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const progress = (s: string) => process.stderr.write(`  ${s}\n`);

const s = await startServer(["--etcd-compaction-interval=0"]);
const ns = "/api/v1/namespaces/default/configmaps";
const MAX_WRITES = RATE * SECONDS + 1000;
/** When the writer read each create's acknowledgement (index = the n in the object's name w-n). */
const acked = new Float64Array(MAX_WRITES).fill(NaN);
/** Delay of every delivery, preallocated: a growing array would pause this client to copy itself. */
const delays = new Float64Array(MAX_WRITES * WATCHERS);
let received = 0, cutOff = 0;
const NAME = Buffer.from('"name":"w-');
const ERROR = Buffer.from('{"type":"ERROR"');
const NL = 10;

await Bun.sleep(500);
const rss0 = rss(s.proc.pid);
progress(`opening ${WATCHERS} watchers`);
/**
 * Opens one watch on its own TLS connection and reads it on bytes: the client only finds each event's
 * name with a byte search (no HTTP client, no string decoding), so that the two cores it shares with the
 * server go to the server. Resolves when the response has begun.
 */
function openWatch(path: string): Promise<void> {
  let tail: Buffer | null = null; // bytes after the last newline: part of an event split across reads
  return new Promise((resolve, reject) => {
    Bun.connect({
      hostname: "127.0.0.1", port: s.port, tls: { ca: s.ca },
      socket: {
        open(sock) { sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`); },
        data(_sock, value) {
          const now = performance.now();
          resolve();
          let b = tail ? Buffer.concat([tail, value]) : value;
          tail = null;
          const end = b.lastIndexOf(NL) + 1;
          if (end < b.length) tail = Buffer.from(b.subarray(end));
          if (b.indexOf(ERROR) >= 0) cutOff++;
          for (let i = b.indexOf(NAME); i >= 0 && i < end; i = b.indexOf(NAME, i)) {
            i += NAME.length;
            let n = 0;
            for (let c = b[i]; c >= 48 && c <= 57; c = b[++i]) n = n * 10 + c - 48;
            // An event can arrive before the writer has read its acknowledgement: that counts as no delay.
            const t = acked[n];
            delays[received++] = Number.isNaN(t) ? 0 : Math.max(0, now - t);
          }
        },
        error(_sock, e) { reject(e); },
        connectError(_sock, e) { reject(e); },
      },
    }).catch(reject);
  });
}
for (let i = 0; i < WATCHERS; i++) await openWatch(`${ns}?watch=1&resourceVersion=0&timeoutSeconds=${SECONDS + 30}`);
await Bun.sleep(1000);
const perWatcher = (rss(s.proc.pid) - rss0) / WATCHERS;
progress(`writing ${RATE}/s for ${SECONDS}s`);
let n = 0;
const sent = new Float64Array(MAX_WRITES);
const inflight = new Set<Promise<void>>();
const cpu0 = { server: cpuOf(s.proc.pid), client: ownCpu(), stolen: stolen() };
const t0 = performance.now();
// Open loop: each write is sent when it is due, whether or not earlier ones were acknowledged.
while (performance.now() - t0 < SECONDS * 1000) {
  const due = Math.floor(((performance.now() - t0) / 1000) * RATE);
  for (; n < due && inflight.size < 32; n++) {
    const i = n;
    sent[i] = performance.now();
    const p = s.req(ns, { method: "POST", json: { metadata: { name: `w-${i}` }, data: { i: String(i) } } }).then(async (r) => {
      acked[i] = performance.now();
      if (r.status !== 201) throw new Error(`create w-${i}: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    }).finally(() => inflight.delete(p));
    inflight.add(p);
  }
  await Bun.sleep(1);
}
await Promise.all(inflight);
await Bun.sleep(2000);
const elapsed = (performance.now() - t0) / 1000;
const cpu = { server: (cpuOf(s.proc.pid) - cpu0.server) / elapsed, client: (ownCpu() - cpu0.client) / elapsed, stolen: (stolen() - cpu0.stolen) / elapsed };
const ackMs = Array.from({ length: n }, (_, i) => acked[i] - sent[i]).sort((a, b) => a - b);
const expected = n * WATCHERS;
const sorted = delays.subarray(0, received).sort();
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

progress("LIST of 10,000 from the cache");
for (let i = 0; i < 10000 - n; i += 100) {
  await Promise.all(Array.from({ length: 100 }, (_, j) => s.call("POST", ns, { metadata: { name: `l-${i + j}` }, data: { v: "x".repeat(1000) } })));
}
let best = Infinity;
for (let r = 0; r < 5; r++) {
  const t = performance.now();
  const res = await s.req(`${ns}?resourceVersion=0`, { headers: { "Accept-Encoding": "identity" } });
  await res.arrayBuffer();
  best = Math.min(best, performance.now() - t);
}
await s.stop();

console.log(`
Command: KITE_BIN=dist/kite WATCHERS=${WATCHERS} RATE=${RATE} SECONDS=${SECONDS} bun test/bench/watch.bench.ts

| measure | value | target |
|---|---|---|
| watchers × writes | ${WATCHERS} × ${n} (asked ${RATE}/s for ${SECONDS} s; achieved ${Math.round(n / SECONDS)}/s) | 1,000 × 500/s |
| events delivered / expected | ${received.toLocaleString("en-US")} / ${expected.toLocaleString("en-US")} (${cutOff} watchers cut off as too slow) | all |
| delay ack → delivery, p50 | ${pct(50).toFixed(1)} ms | |
| delay ack → delivery, p99 | ${pct(99).toFixed(1)} ms | ≤ 20 ms |
| delay ack → delivery, p90 / p99.9 / max | ${pct(90).toFixed(1)} / ${pct(99.9).toFixed(1)} / ${pct(100).toFixed(1)} ms | |
| write latency (request → acknowledgement) p50 / p99 / max | ${ackMs[Math.floor(n / 2)].toFixed(1)} / ${ackMs[Math.floor(n * 0.99)].toFixed(1)} / ${ackMs[n - 1].toFixed(1)} ms | |
| CPU while writing and delivering (cores busy, server / this client / stolen by the host) | ${cpu.server.toFixed(2)} / ${cpu.client.toFixed(2)} / ${cpu.stolen.toFixed(2)} | |
| server RSS per idle watcher | ${(perWatcher / 1024).toFixed(1)} KB | ≤ 30 KB |
| LIST of 10,000 from the watch cache (resourceVersion=0, best of 5) | ${best.toFixed(1)} ms | ≤ 40 ms |
`);
process.exit(0);
