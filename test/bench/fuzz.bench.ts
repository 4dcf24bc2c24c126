// The fuzz suite's generators (test/helpers/fuzz.ts) for a long run: every class in turn, SLICE seconds
// each, until DURATION seconds have passed. Reports answers per status code and class, failed inputs,
// the worst /readyz latency and the peak RSS. A class that kills or breaks the server gets a fresh one.
// Run: KITE_BIN=dist/kite bun test/bench/fuzz.bench.ts   (DURATION=300 SLICE=20 FUZZ_SEED=n CONCURRENCY=8
//      RSS_LIMIT_MB=4096 KITE_TEST_BACKEND=etcd)
import { CLASSES } from "../helpers/fuzz.ts";
import { type ClassReport, FuzzHarness, formatReport } from "../helpers/fuzzrun.ts";
import { BACKEND } from "../helpers/server.ts";

const DURATION = Number(process.env.DURATION ?? 300);
const SLICE = Number(process.env.SLICE ?? 20);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const progress = (s: string) => process.stderr.write(`  ${s}\n`);

const h = new FuzzHarness({
  rssLimitMb: Number(process.env.RSS_LIMIT_MB ?? 4096),
  readyzLimitMs: 1_000,
  concurrency: Number(process.env.CONCURRENCY ?? 8),
  requestTimeoutMs: 10_000,
  log: progress,
});
progress(`fuzz bench on ${BACKEND}: FUZZ_SEED=${SEED}, ${DURATION} s, ${SLICE} s per class`);
await h.start();

const reports: ClassReport[] = [];
const t0 = performance.now();
const elapsed = () => (performance.now() - t0) / 1000;
const ticker = setInterval(() => {
  const c = h.current;
  const done = reports.reduce((n, r) => n + r.sent, 0) + (c?.sent ?? 0);
  const failed = reports.reduce((n, r) => n + r.failures.length, 0) + (c?.failures.length ?? 0);
  progress(`[${elapsed().toFixed(0)} s] ${c?.cls ?? "checking"}: ${done} inputs (${(done / elapsed()).toFixed(0)}/s), ${failed} failed, RSS ${Math.round(h.rssMb())} MB, servers ${h.boots}`);
}, 5_000);
for (let round = 0; elapsed() < DURATION; round++) {
  for (const cls of CLASSES) {
    if (elapsed() >= DURATION) break;
    const rep = await h.run(cls, { ms: Math.min(SLICE, Math.max(1, DURATION - elapsed())) * 1000, seed: SEED, round });
    reports.push(rep);
    progress(formatReport(rep, 0).split("\n")[0]);
  }
}
clearInterval(ticker);
await h.close();

// Per class over all rounds: answers by status, failed inputs, worst /readyz, peak RSS.
const byClass = new Map<string, ClassReport[]>();
for (const r of reports) byClass.set(r.cls, [...(byClass.get(r.cls) ?? []), r]);
const rows = [...byClass].map(([cls, rs]) => {
  const statuses = new Map<string, number>();
  for (const r of rs) for (const [k, v] of r.statuses) statuses.set(k, (statuses.get(k) ?? 0) + v);
  return {
    class: cls,
    inputs: rs.reduce((n, r) => n + r.sent, 0),
    failed: rs.reduce((n, r) => n + r.failures.length, 0),
    problems: rs.reduce((n, r) => n + r.problems.length, 0),
    "worst /readyz ms": Math.round(Math.max(...rs.map((r) => r.readyzWorstMs))),
    "peak RSS MB": Math.round(Math.max(...rs.map((r) => r.rssPeakMb))),
    statuses: [...statuses].sort().map(([k, v]) => `${k}:${v}`).join(" "),
  };
});
console.log(`\nfuzz bench on ${BACKEND}, FUZZ_SEED=${SEED}: ${reports.reduce((n, r) => n + r.sent, 0)} inputs in ${elapsed().toFixed(0)} s, ${h.boots} server(s)`);
console.table(rows);
console.log(`worst /readyz ${Math.round(Math.max(...reports.map((r) => r.readyzWorstMs)))} ms, peak RSS ${Math.round(Math.max(...reports.map((r) => r.rssPeakMb)))} MB`);
for (const r of reports) if (r.failures.length || r.problems.length) console.log(`\n${formatReport(r, 10)}`);
process.exit(0);
