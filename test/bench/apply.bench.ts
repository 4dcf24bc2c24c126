// Benchmark of server-side apply (issue 4 item 6): a ConfigMap with 100 data keys applied through HTTPS as
// PATCH application/apply-patch+yaml — first apply (creates), re-apply unchanged (must not write) and apply
// with one changed key — in applies per second at concurrency 1 and 16. Also checks that an unchanged
// re-apply keeps the object's resourceVersion and does not move the store's revision.
// Run: node_modules/.bin/bun test/bench/apply.bench.ts   (KITE_BIN=dist/kite to bench the built binary;
// N_APPLY=<applies per phase at concurrency 16>, default 3000; a fifth of that at concurrency 1)
import { startServer, type TestServer } from "../helpers/server.ts";

const KEYS = 100;
const N16 = Number(process.env.N_APPLY ?? 3000);
const N1 = Math.max(100, Math.round(N16 / 5));
const NS = "apply-bench";
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const progress = (m: string) => process.stderr.write(`  ${m}\n`);

/** The applied configuration: 100 data keys; `changed` replaces the value of the first. */
function config(name: string, changed?: string): string {
  const data: Record<string, string> = {};
  for (let i = 0; i < KEYS; i++) data[`key-${String(i).padStart(3, "0")}`] = `value-${i}-${"x".repeat(16)}`;
  if (changed !== undefined) data["key-000"] = changed;
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { bench: "apply" } }, data });
}

async function applyOnce(s: TestServer, name: string, body: string, want: number): Promise<string> {
  const r = await s.req(`${CM}/${name}?fieldManager=bench`, { method: "PATCH", headers: { "Content-Type": "application/apply-patch+yaml" }, body });
  const text = await r.text();
  if (r.status !== want) throw new Error(`apply ${name}: expected ${want}, got ${r.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text).metadata.resourceVersion;
}

/** Runs `total` operations on `conc` workers (each knows its index); returns applies/s and mean latency. */
async function load(total: number, conc: number, op: (i: number, worker: number) => Promise<void>) {
  let next = 0;
  let busy = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: conc }, async (_, w) => {
    for (let i = next++; i < total; i = next++) {
      const t = performance.now();
      await op(i, w);
      busy += performance.now() - t;
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  return { perSec: total / secs, meanMs: busy / total };
}

const listRV = async (s: TestServer) => (await s.call("GET", CM)).body.metadata.resourceVersion as string;

async function phase(s: TestServer, conc: number, total: number) {
  // 1. First apply: every apply creates a new object.
  progress(`first apply, concurrency ${conc}`);
  const first = await load(total, conc, async (i) => { await applyOnce(s, `first-c${conc}-${i}`, config(`first-c${conc}-${i}`), 201); });

  // Each worker then works on its own object (so concurrent applies do not contend for one key).
  const own = (w: number) => `steady-c${conc}-w${w}`;
  const rvs: string[] = [];
  for (let w = 0; w < conc; w++) rvs[w] = await applyOnce(s, own(w), config(own(w)), 201);

  // 2. Re-apply unchanged: must not write.
  progress(`re-apply unchanged, concurrency ${conc}`);
  const storeBefore = await listRV(s);
  let bumped = 0;
  const unchanged = await load(total, conc, async (_, w) => {
    const rv = await applyOnce(s, own(w), config(own(w)), 200);
    if (rv !== rvs[w]) bumped++;
  });
  const storeAfter = await listRV(s);

  // 3. Apply with one change: the first key's value changes on every apply.
  progress(`apply with one change, concurrency ${conc}`);
  let stale = 0;
  const changed = await load(total, conc, async (i, w) => {
    const rv = await applyOnce(s, own(w), config(own(w), `changed-${i}`), 200);
    if (rv === rvs[w]) stale++;
    rvs[w] = rv;
  });
  return { first, unchanged, changed, bumped, stale, storeMoved: storeBefore !== storeAfter, storeBefore, storeAfter };
}

const s = await startServer(["--etcd-compaction-interval=0"]);
try {
  const ns = await s.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  if (ns.status !== 201) throw new Error(`create namespace: ${ns.status}`);
  // Warm up (JIT, TLS sessions, the watch cache) on objects outside the measured names.
  for (let i = 0; i < 50; i++) await applyOnce(s, `warm-${i % 5}`, config(`warm-${i % 5}`, i < 5 ? undefined : `w-${i}`), i < 5 ? 201 : 200);

  const c1 = await phase(s, 1, N1);
  const c16 = await phase(s, 16, N16);
  const f = (n: number) => Math.round(n).toLocaleString("en-US");
  const ms = (n: number) => n.toFixed(2);
  const cell = (r: { perSec: number; meanMs: number }) => `${f(r.perSec)} (${ms(r.meanMs)} ms)`;
  const bin = process.env.KITE_BIN ? `KITE_BIN=${process.env.KITE_BIN} ` : "";
  const check = (p: typeof c1, n: number) =>
    p.bumped === 0 && !p.storeMoved ? `yes: 0 of ${f(n)} bumped it; store revision stayed ${p.storeBefore}` : `NO: ${p.bumped} of ${f(n)} bumped it; store revision ${p.storeBefore} → ${p.storeAfter}`;
  console.log(`
Server-side apply of a ConfigMap with ${KEYS} data keys (~${(config("x").length / 1024).toFixed(1)} KB body), PATCH application/apply-patch+yaml over HTTPS, one field manager.
Command: \`${bin}node_modules/.bin/bun test/bench/apply.bench.ts\` (${f(N1)} applies per phase at concurrency 1, ${f(N16)} at concurrency 16; applies/s, mean latency in parentheses)

| measure | concurrency 1 | concurrency 16 |
|---|---|---|
| first apply (creates the object, 201) | ${cell(c1.first)} | ${cell(c16.first)} |
| re-apply unchanged (no write, 200) | ${cell(c1.unchanged)} | ${cell(c16.unchanged)} |
| apply with one changed key (200) | ${cell(c1.changed)} | ${cell(c16.changed)} |
| unchanged re-apply keeps resourceVersion | ${check(c1, N1)} | ${check(c16, N16)} |
| applies with a change that kept the old resourceVersion | ${c1.stale} | ${c16.stale} |
`);
  if (c1.bumped || c16.bumped || c1.storeMoved || c16.storeMoved || c1.stale || c16.stale) process.exitCode = 1;
} finally {
  await s.stop();
}
