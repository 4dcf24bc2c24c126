// Issue 12, finding 11: does a large LIST freeze the server? With LIST_MB of ConfigMaps (~1 MB each) in
// one namespace, each representation is listed once, read as fast as the client can, while /readyz is
// probed back to back: its p50/p99/max during the list, the list's time and bytes on the wire, and the
// server's peak RSS while it was served.
// Run: node_modules/.bin/bun test/bench/large-list.bench.ts   (LIST_MB=350 ITEM_KB=1000 by default;
//      KITE_BIN=dist/kite for the compiled binary, KITE_TEST_BACKEND=etcd for etcd). Markdown on stdout.
import { createNamespace } from "../api/fixtures.ts";
import { REPS, createBig, percentile, probeReadyz, rssMB, withOmitted } from "../helpers/large-list.ts";
import { BACKEND, startServer } from "../helpers/server.ts";

const LIST_MB = Number(process.env.LIST_MB ?? 350);
const ITEM_KB = Number(process.env.ITEM_KB ?? 1000);
const ONLY = process.env.REPS?.split(",");
const NS = "large";
const PROBE_EVERY_MS = 10;
const progress = (s: string) => process.stderr.write(`  ${s}\n`);

const s = await startServer();
const pid = s.proc.pid;
await createNamespace(s, NS);
const count = Math.ceil((LIST_MB * 1000) / ITEM_KB);
let t = performance.now();
await createBig(s, NS, count, ITEM_KB);
progress(`created ${count} ConfigMaps of ~${ITEM_KB} KB in ${((performance.now() - t) / 1000).toFixed(1)} s`);
// The first lists start the watch cache and decode the stored objects into it (and remember their JSON):
// measured here, they are not what the table below is about.
for (let i = 0; i < 2; i++) {
  t = performance.now();
  await (await s.req(`/api/v1/namespaces/${NS}/configmaps`, { headers: { Accept: "application/json", "Accept-Encoding": "identity" } })).arrayBuffer();
  progress(`warm-up list ${i + 1}: ${((performance.now() - t) / 1000).toFixed(2)} s`);
  await Bun.sleep(1000);
}

// kubectl get asks for pages of 500 (limit=500) without a resourceVersion: served by the store, not the cache.
const CASES = [...REPS, { name: "JSON+gzip (limit=500)", accept: "application/json", encoding: "gzip", query: "?limit=500" }];
const rows: string[] = [];
for (const rep of CASES) {
  if (ONLY && !ONLY.includes(rep.name)) continue;
  Bun.gc(true);
  await Bun.sleep(500);
  const rssBefore = rssMB(pid);
  let peak = rssBefore;
  const sampler = setInterval(() => { peak = Math.max(peak, rssMB(pid)); }, 20);
  const probe = probeReadyz(s, PROBE_EVERY_MS);
  await Bun.sleep(200);
  const from = probe.times.length;
  t = performance.now();
  const r = await s.req(`/api/v1/namespaces/${NS}/configmaps${rep.query ?? ""}`, { headers: { Accept: rep.accept, "Accept-Encoding": rep.encoding }, decompress: false } as RequestInit);
  let bytes = 0;
  for await (const chunk of r.body!) bytes += chunk.length;
  const listMs = performance.now() - t;
  const during = probe.times.length;
  await Bun.sleep(200);
  const times = await probe.stop();
  clearInterval(sampler);
  const inList = withOmitted(times.slice(from, during), PROBE_EVERY_MS);
  rows.push(`| ${rep.name} | ${r.status} ${r.headers.get("content-encoding") ?? ""} | ${(bytes / 1e6).toFixed(0)} | ${(listMs / 1000).toFixed(2)} | ` +
    `${percentile(inList, 50).toFixed(1)} | ${percentile(inList, 99).toFixed(1)} | ${Math.max(...inList).toFixed(0)} | ${inList.length} | ${rssBefore.toFixed(0)} → ${peak.toFixed(0)} |`);
  progress(rows.at(-1)!);
}
await s.stop();

console.log(`## LIST of ${count} ConfigMaps of ~${ITEM_KB} KB (${BACKEND}), /readyz probed every ${PROBE_EVERY_MS} ms during it (p50/p99 counting the probes a stall held back)\n`);
console.log("| representation | status | MB on the wire | list s | /readyz p50 ms | p99 ms | max ms | probes (with omitted) | server RSS MB (before → peak) |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
process.exit(0); // the etcd of KITE_TEST_BACKEND=etcd is stopped on exit
