// Watch fan-out (issue 3 item 8): N watchers on one collection while writes arrive at a fixed rate;
// delay from write acknowledgement to delivery at every watcher, server RSS per idle watcher, and a
// LIST of 10,000 objects from the watch cache (resourceVersion=0).
// Run: BUN_CONFIG_MAX_HTTP_REQUESTS=4096 KITE_BIN=dist/kite bun test/bench/watch.bench.ts   (WATCHERS=1000 RATE=500 SECONDS=10)
// (Bun's fetch opens at most 256 connections unless BUN_CONFIG_MAX_HTTP_REQUESTS raises it.)
import { readFileSync } from "node:fs";
import { startServer } from "../helpers/server.ts";

const WATCHERS = Number(process.env.WATCHERS ?? 1000);
const RATE = Number(process.env.RATE ?? 500);
const SECONDS = Number(process.env.SECONDS ?? 10);
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const progress = (s: string) => process.stderr.write(`  ${s}\n`);

const s = await startServer(["--etcd-compaction-interval=0"]);
const ns = "/api/v1/namespaces/default/configmaps";
const acked = new Map<string, number>();
const delays: number[] = [];
let received = 0, cutOff = 0;

await Bun.sleep(500);
const rss0 = rss(s.proc.pid);
progress(`opening ${WATCHERS} watchers`);
const readers: Promise<void>[] = [];
for (let i = 0; i < WATCHERS; i++) {
  const res = await s.req(`${ns}?watch=1&resourceVersion=0&timeoutSeconds=${SECONDS + 30}`);
  const reader = res.body!.getReader();
  readers.push((async () => {
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const now = performance.now();
      buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('{"type":"ERROR"')) cutOff++;
        const m = /"name":"(w-\d+)"/.exec(line);
        if (!m) continue;
        // An event can arrive before the writer has read its acknowledgement: that counts as no delay.
        const t = acked.get(m[1]);
        delays.push(t === undefined ? 0 : Math.max(0, now - t));
        received++;
      }
    }
  })());
}
await Bun.sleep(1000);
const perWatcher = (rss(s.proc.pid) - rss0) / WATCHERS;
progress(`writing ${RATE}/s for ${SECONDS}s`);
let n = 0;
const t0 = performance.now();
while (performance.now() - t0 < SECONDS * 1000) {
  const due = Math.floor(((performance.now() - t0) / 1000) * RATE);
  const batch: Promise<void>[] = [];
  for (; n < due; n++) {
    const name = `w-${n}`;
    batch.push(s.req(ns, { method: "POST", json: { metadata: { name }, data: { i: String(n) } } }).then(async (r) => {
      acked.set(name, performance.now());
      await r.arrayBuffer();
    }));
  }
  await Promise.all(batch);
  await Bun.sleep(2);
}
await Bun.sleep(2000);
const expected = n * WATCHERS;
delays.sort((a, b) => a - b);
const pct = (p: number) => delays[Math.min(delays.length - 1, Math.floor((p / 100) * delays.length))] ?? NaN;

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
Command: BUN_CONFIG_MAX_HTTP_REQUESTS=4096 KITE_BIN=dist/kite WATCHERS=${WATCHERS} RATE=${RATE} SECONDS=${SECONDS} bun test/bench/watch.bench.ts

| measure | value | target |
|---|---|---|
| watchers × writes | ${WATCHERS} × ${n} (asked ${RATE}/s for ${SECONDS} s; achieved ${Math.round(n / SECONDS)}/s) | 1,000 × 500/s |
| events delivered / expected | ${received.toLocaleString("en-US")} / ${expected.toLocaleString("en-US")} (${cutOff} watchers cut off as too slow) | all |
| delay ack → delivery, p50 | ${pct(50).toFixed(1)} ms | |
| delay ack → delivery, p99 | ${pct(99).toFixed(1)} ms | ≤ 20 ms |
| server RSS per idle watcher | ${(perWatcher / 1024).toFixed(1)} KB | ≤ 30 KB |
| LIST of 10,000 from the watch cache (resourceVersion=0, best of 5) | ${best.toFixed(1)} ms | ≤ 40 ms |
`);
process.exit(0);
