// What a LIST of custom resources costs at the storage version and at another version converted with
// strategy None (pkg/crd/defs.ts): COUNT objects, REPS lists of each, median and p90 in ms. Run it on two
// trees in the same session to compare them (docs/PERFORMANCE.md "Custom resource lists").
// Run: node_modules/.bin/bun test/bench/crd-list.bench.ts   (COUNT=1000 REPS=40 by default). Markdown on stdout.
import { createNamespace, until } from "../api/fixtures.ts";
import { startServer } from "../helpers/server.ts";

const COUNT = Number(process.env.COUNT ?? 1000);
const REPS = Number(process.env.REPS ?? 40);
const G = "bench.example.com";
const NS = "crd-list";
const schema = { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" }, color: { type: "string" } } } } } };

const s = await startServer();
try {
  await createNamespace(s, NS);
  await s.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
    metadata: { name: `things.${G}` },
    spec: { group: G, scope: "Namespaced", names: { plural: "things", kind: "Thing" },
      versions: [{ name: "v1", served: true, storage: true, schema }, { name: "v1beta1", served: true, storage: false, schema }] },
  });
  const path = (v: string) => `/apis/${G}/${v}/namespaces/${NS}/things`;
  await until(async () => (await s.call("GET", path("v1beta1"))).status === 200, "things served");
  for (let i = 0; i < COUNT; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, COUNT - i) }, (_, j) =>
      s.call("POST", path("v1"), { apiVersion: `${G}/v1`, kind: "Thing", metadata: { name: `t-${i + j}`, labels: { app: "bench" } }, spec: { size: i + j, color: "blue" } })));
  }
  const rows: string[] = [];
  for (const v of ["v1", "v1beta1"]) {
    for (let i = 0; i < 3; i++) await (await s.req(path(v))).arrayBuffer(); // warm the watch cache
    const ms: number[] = [];
    for (let i = 0; i < REPS; i++) {
      const t = performance.now();
      const body = (await (await s.req(path(v))).json()) as { items: unknown[] };
      ms.push(performance.now() - t);
      if (body.items.length !== COUNT) throw new Error(`listed ${body.items.length} of ${COUNT}`);
    }
    ms.sort((a, b) => a - b);
    rows.push(`| ${v}${v === "v1" ? " (storage)" : " (None conversion)"} | ${COUNT} | ${ms[Math.floor(REPS / 2)]!.toFixed(1)} | ${ms[Math.floor(REPS * 0.9)]!.toFixed(1)} |`);
  }
  console.log(`load average ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}\n`);
  console.log("| list at | objects | median ms | p90 ms |\n|---|---|---|---|");
  console.log(rows.join("\n"));
} finally {
  await s.stop();
}
