// Watchers that never read (issue 12): N watches of one collection whose clients stop reading once the
// response has begun, while one ConfigMap of 200 KB is updated as fast as the server takes it. Reports the
// server's RSS (peak), /readyz and GET latency during the updates, that a reading watcher still sees
// every update, and what became of the non-reading watchers: a sample reads again and must find the
// ERROR event; the rest are disconnected by the server (its open sockets, counted in /proc).
// Run: bun test/bench/watch-memory.bench.ts   (WATCHERS=2000 UPDATES=400 SIZE=204800)
// Note: each stuck connection also fills its kernel socket buffers (up to net.ipv4.tcp_wmem's 4 MB), which
// is not the server's RSS; the machine-wide TCP memory is shown as /proc/net/sockstat reports it.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { Socket } from "bun";
import { startServer } from "../helpers/server.ts";
import { progress } from "./load.ts";

const WATCHERS = Number(process.env.WATCHERS ?? 2000);
const UPDATES = Number(process.env.UPDATES ?? 400);
const SIZE = Number(process.env.SIZE ?? 200 * 1024);
const SAMPLE = Math.min(20, WATCHERS);

const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const sockets = (pid: number) => readdirSync(`/proc/${pid}/fd`).filter((fd) => { try { return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:"); } catch { return false; } }).length;
const tcpMem = () => Number(/TCP:.* mem (\d+)/.exec(readFileSync("/proc/net/sockstat", "utf8"))?.[1] ?? 0) * 4096;
const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`;

const s = await startServer();
// The server's output is read (a full pipe would block it).
for (const st of [s.proc.stdout, s.proc.stderr]) void (async () => { for await (const _ of st as ReadableStream<Uint8Array>); })();
const CM = "/api/v1/namespaces/default/configmaps";
const name = "big";
await s.call("POST", CM, { metadata: { name }, data: { v: "0".repeat(SIZE) } });
const rv = (await s.call("GET", CM)).body.metadata.resourceVersion;
const path = `${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=3600`;

interface Raw { sock: Socket<undefined>; tail: string }
/** A watch on its own TLS connection that stops reading once the response has begun. */
function rawWatch(): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const w = { tail: "" } as Raw;
    let begun = false;
    Bun.connect({
      hostname: "127.0.0.1", port: s.port, tls: { ca: s.ca },
      socket: {
        open(sock) { sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`); },
        data(sock, d) {
          if (!begun) { begun = true; sock.pause(); w.sock = sock; resolve(w); }
          w.tail = (w.tail + d.toString("latin1")).slice(-4096);
        },
        error(_s, e) { reject(e); },
        connectError(_s, e) { reject(e); },
      },
    }).catch(reject);
  });
}

await Bun.sleep(500);
const rss0 = rss(s.proc.pid), sockets0 = sockets(s.proc.pid), tcp0 = tcpMem();
progress(`opening ${WATCHERS} non-reading watchers`);
const raw: Raw[] = [];
for (let i = 0; i < WATCHERS; i += 50) raw.push(...(await Promise.all(Array.from({ length: Math.min(50, WATCHERS - i) }, rawWatch))));
const reader = (await s.req(path)).body!.getReader();
let seen = 0, readerCut = "";
void (async () => {
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += dec.decode(value, { stream: true });
    for (let i; (i = buf.indexOf("\n")) >= 0; buf = buf.slice(i + 1)) {
      if (buf.startsWith('{"type":"MODIFIED"')) seen++;
      else if (buf.startsWith('{"type":"ERROR"')) readerCut = buf.slice(0, i);
    }
  }
})().catch(() => {});
await Bun.sleep(1000);
const rssOpen = rss(s.proc.pid), socketsOpen = sockets(s.proc.pid);

progress(`updating a ${SIZE / 1024} KB ConfigMap ${UPDATES} times`);
let writing = true, peak = rssOpen, tcpPeak = tcp0;
const readyz: number[] = [], gets: number[] = [];
const sampler = (async () => {
  while (writing) {
    peak = Math.max(peak, rss(s.proc.pid));
    tcpPeak = Math.max(tcpPeak, tcpMem());
    let t = performance.now();
    const r = await s.req("/readyz");
    await r.arrayBuffer();
    readyz.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`/readyz answered ${r.status}`);
    t = performance.now();
    const g = await s.req(`${CM}/${name}`);
    await g.arrayBuffer();
    gets.push(performance.now() - t);
    await Bun.sleep(100);
  }
})();
const t0 = performance.now();
for (let i = 1; i <= UPDATES; i++) {
  const r = await s.call("PUT", `${CM}/${name}`, { metadata: { name }, data: { v: String(i % 10).repeat(SIZE) } });
  if (r.status !== 200) throw new Error(`update ${i}: ${r.status}`);
}
const writeSecs = (performance.now() - t0) / 1000;
// A sample reads again: it gets what was left of its stream, then the ERROR event (unless it was cut
// off more than 10 s ago: a watcher cut off that reads nothing for that long is disconnected).
progress(`${SAMPLE} watchers read again; the others are left for the server to disconnect`);
for (const w of raw.slice(0, SAMPLE)) w.sock.resume();
await Bun.sleep(1000);
writing = false;
await sampler;
peak = Math.max(peak, rss(s.proc.pid));
await Bun.sleep(4000);
const sample = raw.slice(0, SAMPLE);
const gotError = sample.filter((w) => w.tail.includes('"type":"ERROR"') && w.tail.includes("too slow")).length;
const dropped = sample.filter((w) => !w.tail.endsWith("\r\n0\r\n\r\n")).length;
// Cut-off watchers that still do not read are disconnected after 10 s (outbox.ts DRAIN_MS).
await Bun.sleep(8000);
const socketsAfter = sockets(s.proc.pid), rssAfter = rss(s.proc.pid);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
for (const w of raw) w.sock.terminate();
await reader.cancel().catch(() => {});
await s.stop();

console.log(`
Command: WATCHERS=${WATCHERS} UPDATES=${UPDATES} SIZE=${SIZE} bun test/bench/watch-memory.bench.ts

| measure | value | target |
|---|---|---|
| non-reading watchers × updates | ${WATCHERS} × ${UPDATES} of ${SIZE / 1024} KB in ${writeSecs.toFixed(1)} s (${mb((WATCHERS * UPDATES * SIZE))} sent to watchers in all) | 2,000 × 200 KB |
| server RSS: idle / ${WATCHERS} watches open / peak during updates / 18 s after | ${mb(rss0)} / ${mb(rssOpen)} / ${mb(peak)} / ${mb(rssAfter)} | peak ≤ 1 GB |
| /readyz latency during updates p50 / p99 / max (${readyz.length} probes) | ${pct(readyz, 50).toFixed(1)} / ${pct(readyz, 99).toFixed(1)} / ${Math.max(...readyz).toFixed(1)} ms | answers promptly |
| GET of the 200 KB ConfigMap during updates p50 / p99 / max | ${pct(gets, 50).toFixed(1)} / ${pct(gets, 99).toFixed(1)} / ${Math.max(...gets).toFixed(1)} ms | |
| a reading watcher saw | ${seen} / ${UPDATES} updates${readerCut ? `, then ${readerCut}` : ""} | all |
| sample that read again after the updates: found the "too slow" ERROR event / disconnected before reading it | ${gotError} / ${dropped} of ${SAMPLE} | all accounted for |
| server sockets: before / with watches / 18 s after the updates | ${sockets0} / ${socketsOpen} / ${socketsAfter} | the stuck ones closed |
| kernel TCP memory (all sockets on the host): before / peak | ${mb(tcp0)} / ${mb(tcpPeak)} | (not the server's RSS) |
`);
process.exit(0);
