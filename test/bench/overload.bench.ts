// Overload protection measured: one noisy user runs 10× --max-requests-inflight clients in a closed
// loop (LISTs; a 429 retried after its Retry-After, as client-go does) while a quiet user's GETs and
// /readyz are timed, first on the idle server, then under the noise; with priority and fairness on (the
// two users are different flows of global-default) and off (plain in-flight limits). The noisy clients
// run in a process of their own (overload-noise.ts); the timing process's own event-loop lag is shown
// too. Also what APF costs a GET at default limits.
// Then, on the same server, what one noisy LIST costs it alone (N_LIST of them, 8 at a time).
// Run: bun test/bench/overload.bench.ts   (SECONDS=8 INFLIGHT=40 OBJECTS=300 N_GET=4000 N_LIST=2000 by default;
// COST_ONLY=1 runs only the cost part, COST_USER=test times it for system:masters, the exempt level;
// MODES=on|off one mode's overload part only, NO_COST=1 no cost part; NOISE_IN_PROCESS=1 the noisy
// clients in this process, sharing the timed user's event loop, as first measured; NOISE_NICE=N runs the
// noisy clients' process at that nice level, standing in for clients on other machines: on two cores the
// generator otherwise takes the server's and the timed client's CPU, and measures the machine, not the server)
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, track } from "../helpers/processes.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { LeanHttps, measured, progress } from "./load.ts";

const SECONDS = Number(process.env.SECONDS ?? 8), INFLIGHT = Number(process.env.INFLIGHT ?? 40);
const OBJECTS = Number(process.env.OBJECTS ?? 300), N_GET = Number(process.env.N_GET ?? 4000), N_LIST = Number(process.env.N_LIST ?? 2000);
const CLIENTS = 10 * INFLIGHT, IN_PROCESS = !!process.env.NOISE_IN_PROCESS;
const tokens = join(tempDir("kite-overload-bench-"), "tokens.csv");
writeFileSync(tokens, "test,kite-test,kite-test,system:masters\nnoisy,noisy,noisy,\nquiet,quiet,quiet,\n");
const bearer = (t: string) => `Authorization: Bearer ${t}\r\n`;
const APF: [string, string[]][] = [["APF on", []], ["APF off", ["--enable-priority-and-fairness=false"]]];
// MODES=on (or off) runs only that mode's overload part
const MODES = APF.filter(([label]) => !process.env.MODES || label === `APF ${process.env.MODES}`);

const rssMB = (pid: number) => {
  const m = /VmRSS:\s+(\d+)/.exec(require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
};
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN; };
const ms = (x: number) => x.toFixed(1);

/** Times the quiet user's GET and an anonymous /readyz, one after the other, until `until` resolves. */
async function probe(pool: LeanHttps, until: Promise<unknown>) {
  const get: number[] = [], readyz: number[] = [], lag: number[] = [];
  let done = false;
  // the measuring process's own event-loop delay: what of a latency is the client's, not the server's
  let tick = performance.now();
  const lagTimer = setInterval(() => { const now = performance.now(); lag.push(now - tick - 5); tick = now; }, 5);
  void until.then(() => { done = true; clearInterval(lagTimer); });
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
  return { get, readyz, lag };
}

const NOISY_LIST = "/api/v1/namespaces/load/configmaps";
interface Noise { stop(): Promise<Record<number, number>> }

/** The noisy user in its own process (overload-noise.ts), as a real noisy client is. */
async function noiseApart(s: TestServer): Promise<Noise> {
  const ca = join(tempDir("kite-overload-ca-"), "ca.crt");
  writeFileSync(ca, s.ca);
  const nice = process.env.NOISE_NICE ? ["nice", "-n", process.env.NOISE_NICE] : [];
  const proc = Bun.spawn([...nice, process.execPath, join(import.meta.dir, "overload-noise.ts")], {
    env: { ...process.env, PORT: String(s.port), CA: ca, CLIENTS: String(CLIENTS), TOKEN: "noisy", PATH_: NOISY_LIST },
    stdin: "pipe", stdout: "pipe", stderr: "inherit",
  });
  track(proc);
  const lines = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  const line = async () => {
    for (;;) {
      const nl = out.indexOf("\n");
      if (nl >= 0) { const l = out.slice(0, nl); out = out.slice(nl + 1); return l; }
      const { value, done } = await lines.read();
      if (done) throw new Error("the noisy clients' process ended early");
      out += value;
    }
  };
  if ((await line()) !== "ready") throw new Error("the noisy clients did not start");
  return { stop: async () => { proc.stdin.end(); return JSON.parse(await line()); } };
}

/** The noisy user in this process, sharing the timed quiet user's event loop (NOISE_IN_PROCESS=1, as first measured). */
async function noiseHere(s: TestServer): Promise<Noise> {
  const noisy = await LeanHttps.open(s.port, s.ca, CLIENTS);
  const codes: Record<number, number> = {};
  let stop = false;
  const clients = Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (!stop) {
      const r = await noisy.request("GET", NOISY_LIST, "", bearer("noisy"));
      codes[r.status] = (codes[r.status] ?? 0) + 1;
      // as client-go does: a 429 is retried after its Retry-After (1 s)
      if (r.status === 429) await Bun.sleep(1000);
    }
  }));
  return { stop: async () => { stop = true; await clients; noisy.close(); return codes; } };
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
  const noise = await (IN_PROCESS ? noiseHere : noiseApart)(s);
  progress(`${label}: ${CLIENTS} noisy clients${IN_PROCESS ? ", in this process" : ""}`);
  let maxRss = rssMB(s.proc.pid);
  const sampler = setInterval(() => { maxRss = Math.max(maxRss, rssMB(s.proc.pid)); }, 200);
  const t0 = performance.now();
  const loaded = await probe(quiet, Bun.sleep(SECONDS * 1000));
  const codes = await noise.stop();
  const secs = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const alive = s.proc.exitCode === null && (await quiet.request("GET", "/readyz")).status === 200;
  // what one noisy LIST costs the server, alone (8 at a time, as the quiet user: nothing is shed)
  const list = () => admin.request("GET", NOISY_LIST, "", bearer("quiet")).then((r) => { if (r.status !== 200) throw new Error(`LIST: ${r.status}`); });
  const lists = await measured(N_LIST, 8, list, { server: s.proc.pid });
  const served = (codes[200] ?? 0) / secs, shed = (codes[429] ?? 0) / secs;
  console.log(`| ${label} | ${ms(pct(idle.get, 50))} / ${ms(pct(idle.get, 99))} | ${ms(pct(loaded.get, 50))} / ${ms(pct(loaded.get, 99))} | ${ms(pct(idle.readyz, 99))} → ${ms(pct(loaded.readyz, 99))} | ${Math.round(served)} | ${Math.round(shed)} | ${Object.keys(codes).filter((c) => c !== "200" && c !== "429").join(",") || "none"} | ${Math.round(maxRss)} MB | ${alive ? "yes" : "NO"} | ${ms(pct(idle.lag, 99))} → ${ms(pct(loaded.lag, 99))} | ${Math.round(lists.rate)}, ${lists.cpu.server} µs |`);
  for (const p of [admin, quiet]) p.close();
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

console.log(`Overload: --max-requests-inflight=${INFLIGHT}, ${CLIENTS} noisy clients${process.env.NOISE_NICE ? ` (nice ${process.env.NOISE_NICE})` : ""} LISTing ${OBJECTS} ConfigMaps for ${SECONDS} s; quiet GET and /readyz in ms\n`);
console.log("| mode | quiet GET idle p50 / p99 | quiet GET loaded p50 / p99 | /readyz p99 idle → loaded | noisy LISTs served/s | noisy 429/s | other codes | server RSS max | alive after | client's own loop lag p99 idle → loaded | LISTs alone: per s, server CPU each |\n|---|---|---|---|---|---|---|---|---|---|---|");
if (!process.env.COST_ONLY) for (const [label, flags] of MODES) await overload(label, flags);
if (process.env.NO_COST) process.exit(0);
console.log(`\nCost of a GET at the default limits (concurrency 16, ${N_GET} GETs)\n\n| mode | GETs/s | server CPU per GET |\n|---|---|---|`);
for (const round of [1, 2]) for (const [label, flags] of APF) { progress(`cost round ${round}: ${label}`); await cost(`${label} (round ${round})`, flags); }
process.exit(0);
