// Overload protection measured: one noisy user runs 10× --max-requests-inflight clients in a closed
// loop (LISTs; a 429 retried after its Retry-After, as client-go does) while a quiet user's GETs and
// /readyz are timed, first on the idle server, then under the noise; with priority and fairness on (the
// two users are different flows of global-default) and off (plain in-flight limits). Also what APF costs
// a GET at default limits.
// Run: bun test/bench/overload.bench.ts   (SECONDS=8 INFLIGHT=40 OBJECTS=300 N_GET=4000 by default;
// COST_ONLY=1 runs only the cost part, COST_USER=test times it for system:masters, the exempt level)
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { LeanHttps, measured, progress } from "./load.ts";

const SECONDS = Number(process.env.SECONDS ?? 8), INFLIGHT = Number(process.env.INFLIGHT ?? 40);
const OBJECTS = Number(process.env.OBJECTS ?? 300), N_GET = Number(process.env.N_GET ?? 4000);
const CLIENTS = 10 * INFLIGHT;
const tokens = join(tempDir("kite-overload-bench-"), "tokens.csv");
writeFileSync(tokens, "test,kite-test,kite-test,system:masters\nnoisy,noisy,noisy,\nquiet,quiet,quiet,\n");
const bearer = (t: string) => `Authorization: Bearer ${t}\r\n`;
const APF: [string, string[]][] = [["APF on", []], ["APF off", ["--enable-priority-and-fairness=false"]]];

const rssMB = (pid: number) => {
  const m = /VmRSS:\s+(\d+)/.exec(require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
};
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN; };
const ms = (x: number) => x.toFixed(1);

/** Times the quiet user's GET and an anonymous /readyz, one after the other, until `until` resolves. */
async function probe(pool: LeanHttps, until: Promise<unknown>) {
  const get: number[] = [], readyz: number[] = [];
  let done = false;
  void until.then(() => { done = true; });
  while (!done) {
    let t0 = performance.now();
    const g = await pool.request("GET", "/api/v1/namespaces/load/configmaps/cm-0", "", bearer("quiet"));
    if (g.status !== 200) throw new Error(`quiet GET: ${g.status}`);
    get.push(performance.now() - t0);
    t0 = performance.now();
    const r = await pool.request("GET", "/readyz");
    if (r.status !== 200) throw new Error(`/readyz: ${r.status}`);
    readyz.push(performance.now() - t0);
    await Bun.sleep(10);
  }
  return { get, readyz };
}

async function overload(label: string, flags: string[]) {
  progress(`${label}: start, ${OBJECTS} ConfigMaps`);
  const s = await startServer([`--token-auth-file=${tokens}`, `--max-requests-inflight=${INFLIGHT}`, `--max-mutating-requests-inflight=${Math.ceil(INFLIGHT / 2)}`, "--etcd-compaction-interval=0", ...flags]);
  const admin = await LeanHttps.open(s.port, s.ca, 8);
  await admin.request("POST", "/api/v1/namespaces", JSON.stringify({ metadata: { name: "load" } }), bearer("test"));
  await Promise.all(Array.from({ length: OBJECTS }, (_, i) => admin.request("POST", "/api/v1/namespaces/load/configmaps", JSON.stringify({ metadata: { name: `cm-${i}` }, data: { k: "v".repeat(200) } }), bearer("test"))));
  const quiet = await LeanHttps.open(s.port, s.ca, 2);
  progress(`${label}: idle`);
  const idle = await probe(quiet, Bun.sleep((SECONDS * 1000) / 2));
  const noisy = await LeanHttps.open(s.port, s.ca, CLIENTS);
  progress(`${label}: ${CLIENTS} noisy clients`);
  const codes: Record<number, number> = {};
  let stop = false, maxRss = rssMB(s.proc.pid);
  const sampler = setInterval(() => { maxRss = Math.max(maxRss, rssMB(s.proc.pid)); }, 200);
  const noise = Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (!stop) {
      const r = await noisy.request("GET", "/api/v1/namespaces/load/configmaps", "", bearer("noisy"));
      codes[r.status] = (codes[r.status] ?? 0) + 1;
      // as client-go does: a 429 is retried after its Retry-After (1 s)
      if (r.status === 429) await Bun.sleep(1000);
    }
  }));
  const t0 = performance.now();
  const loaded = await probe(quiet, Bun.sleep(SECONDS * 1000));
  stop = true;
  await noise;
  const secs = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const alive = s.proc.exitCode === null && (await quiet.request("GET", "/readyz")).status === 200;
  const served = (codes[200] ?? 0) / secs, shed = (codes[429] ?? 0) / secs;
  console.log(`| ${label} | ${ms(pct(idle.get, 50))} / ${ms(pct(idle.get, 99))} | ${ms(pct(loaded.get, 50))} / ${ms(pct(loaded.get, 99))} | ${ms(pct(idle.readyz, 99))} → ${ms(pct(loaded.readyz, 99))} | ${Math.round(served)} | ${Math.round(shed)} | ${Object.keys(codes).filter((c) => c !== "200" && c !== "429").join(",") || "none"} | ${Math.round(maxRss)} MB | ${alive ? "yes" : "NO"} |`);
  for (const p of [admin, quiet, noisy]) p.close();
  await s.stop();
}

/** GETs/s and server CPU per GET of the quiet user (a limited level) at the default limits. */
async function cost(label: string, flags: string[], s?: TestServer) {
  s = await startServer([`--token-auth-file=${tokens}`, "--etcd-compaction-interval=0", ...flags]);
  const pool = await LeanHttps.open(s.port, s.ca, 16);
  await pool.request("POST", "/api/v1/namespaces/default/configmaps", JSON.stringify({ metadata: { name: "one" }, data: { k: "v" } }), bearer("test"));
  const get = () => pool.request("GET", "/api/v1/namespaces/default/configmaps/one", "", bearer(process.env.COST_USER ?? "quiet")).then((r) => { if (r.status !== 200) throw new Error(`GET: ${r.status}`); });
  await measured(1000, 16, get, { server: s.proc.pid });
  const m = await measured(N_GET, 16, get, { server: s.proc.pid });
  console.log(`| ${label} | ${Math.round(m.rate)} | ${m.cpu.server} µs |`);
  pool.close();
  await s.stop();
}

console.log(`Overload: --max-requests-inflight=${INFLIGHT}, ${CLIENTS} noisy clients LISTing ${OBJECTS} ConfigMaps for ${SECONDS} s; quiet GET and /readyz in ms\n`);
console.log("| mode | quiet GET idle p50 / p99 | quiet GET loaded p50 / p99 | /readyz p99 idle → loaded | noisy LISTs served/s | noisy 429/s | other codes | server RSS max | alive after |\n|---|---|---|---|---|---|---|---|---|");
if (!process.env.COST_ONLY) for (const [label, flags] of APF) await overload(label, flags);
console.log(`\nCost of a GET at the default limits (concurrency 16, ${N_GET} GETs)\n\n| mode | GETs/s | server CPU per GET |\n|---|---|---|`);
for (const round of [1, 2]) for (const [label, flags] of APF) { progress(`cost round ${round}: ${label}`); await cost(`${label} (round ${round})`, flags); }
process.exit(0);
