// Issue 13: what the OpenAPI documents of the built-in kinds cost, in-process, each build in a fresh
// process (so the first build pays what a server's first request pays): the v2 document (JSON and
// protobuf) and all v3 documents, their sizes (plain and gzipped), build times, and the heap they hold.
// Run: node_modules/.bin/bun test/bench/openapi.bench.ts   (ROUNDS overrides the number of processes).
// Prints a Markdown report on stdout.
import { loadavg } from "node:os";

const ROUNDS = Number(process.env.ROUNDS ?? 5);

/** One measurement, run in a child process: `bun openapi.bench.ts --one v2|v3` prints a JSON line. */
async function one(which: string): Promise<void> {
  const { BUILTIN } = await import("../../pkg/registry/builtin.ts");
  const { openapiV2 } = await import("../../pkg/openapi/v2.ts");
  const { openapiV3 } = await import("../../pkg/openapi/document.ts");
  const heap = () => { Bun.gc(true); Bun.gc(true); return process.memoryUsage().heapUsed; };
  const before = heap();
  const t0 = performance.now();
  let bodies: (string | Uint8Array)[];
  if (which === "v2") {
    const d = openapiV2(BUILTIN);
    bodies = [d.json.body, d.protobuf.body];
  } else {
    const api = openapiV3(BUILTIN);
    bodies = Object.keys((api.root() as { paths: object }).paths).map((k) => api.doc(k)!.body);
  }
  const ms = performance.now() - t0;
  const held = heap() - before;
  const size = (b: string | Uint8Array) => (typeof b === "string" ? Buffer.byteLength(b) : b.length);
  const gz = (b: string | Uint8Array) => Bun.gzipSync(typeof b === "string" ? Buffer.from(b) : (b as Uint8Array<ArrayBuffer>), { level: 1 }).length;
  console.log(JSON.stringify({ ms, held, sizes: bodies.map(size), gzipped: bodies.map(gz), bodies: bodies.length }));
  (globalThis as { keep?: unknown }).keep = bodies;
}

async function main(): Promise<void> {
  const runs: Record<string, { ms: number; held: number; sizes: number[]; gzipped: number[]; bodies: number }[]> = { v2: [], v3: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const which of ["v2", "v3"]) {
      const p = Bun.spawn([process.execPath, import.meta.path, "--one", which], { stdout: "pipe", stderr: "inherit" });
      runs[which].push(JSON.parse(await new Response(p.stdout).text()));
      await p.exited;
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const mb = (n: number) => (n / 1e6).toFixed(2);
  const range = (xs: number[]) => `${median([...xs]).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
  const [v2, v3] = [runs.v2[0], runs.v3[0]];
  console.log(`${ROUNDS} processes each, load average ${loadavg()[0].toFixed(1)}.\n`);
  console.log("| document | bytes | gzipped (level 1) |\n|---|---:|---:|");
  console.log(`| /openapi/v2, JSON | ${v2.sizes[0].toLocaleString("en")} | ${v2.gzipped[0].toLocaleString("en")} |`);
  console.log(`| /openapi/v2, protobuf | ${v2.sizes[1].toLocaleString("en")} | ${v2.gzipped[1].toLocaleString("en")} |`);
  console.log(`| /openapi/v3, all ${v3.bodies} documents | ${sum(v3.sizes).toLocaleString("en")} | ${sum(v3.gzipped).toLocaleString("en")} |`);
  console.log("\n| build (first, in a fresh process) | ms, median (min–max) | heap held afterwards (MB, median) |\n|---|---:|---:|");
  console.log(`| v2: JSON and protobuf | ${range(runs.v2.map((x) => x.ms))} | ${mb(median(runs.v2.map((x) => x.held)))} |`);
  console.log(`| v3: all documents | ${range(runs.v3.map((x) => x.ms))} | ${mb(median(runs.v3.map((x) => x.held)))} |`);
}

if (process.argv[2] === "--one") await one(process.argv[3]);
else await main();
