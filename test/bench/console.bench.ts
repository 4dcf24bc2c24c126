// The console in a real browser (issue 21 item 5): time to first paint and to a live pod list, the page's
// memory with 5,000 pods in one namespace, and frame times while 100 watch events a second arrive.
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/console.bench.ts   (PODS=5000 RATE=100 SECONDS=10)
import { gzipSync } from "node:zlib";
import { launchBrowser, startConsoleProcess } from "../helpers/browser.ts";
import { startServer } from "../helpers/server.ts";
import { load, progress } from "./load.ts";

const PODS = Number(process.env.PODS ?? 5000);
const RATE = Number(process.env.RATE ?? 100);
const SECONDS = Number(process.env.SECONDS ?? 10);
const NS = "bench";

/** The page's document and window, in functions that run in the browser. */
declare const document: { querySelectorAll(s: string): { length: number }; querySelector(s: string): { textContent: string | null } | null };
declare const window: any;

const s = await startServer();
const ms = (v: number) => `${v.toFixed(0)} ms`;
try {
  progress(`creating ${PODS} pods in namespace ${NS}`);
  await s.call("POST", "/api/v1/namespaces", { metadata: { name: NS } });
  await load(PODS, 32, (i) => s.call("POST", `/api/v1/namespaces/${NS}/pods`, {
    metadata: { name: `pod-${String(i).padStart(5, "0")}`, labels: { app: "bench" } },
    spec: { containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"] }] },
  }));
  const web = await startConsoleProcess(s.kubeconfig);
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");

  // Empty namespace: how soon the page paints and lists (best of 5, each a fresh load).
  const firsts: { paint: number; list: number }[] = [];
  await page.goto(web.url);
  for (let i = 0; i < 5; i++) {
    await page.goto(`${new URL(web.url).origin}/?r=${i}#res=v1/pods&ns=default`);
    await page.waitForSelector("section.list[data-resource=pods]");
    firsts.push(await page.evaluate(() => ({
      paint: window.performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
      list: window.performance.getEntriesByName("kite-console:list")[0].startTime,
    })));
  }
  const best = (k: "paint" | "list") => Math.min(...firsts.map((f) => f[k]));

  // 5,000 pods: time to the live list, then the page's heap after a garbage collection.
  await page.goto(`${new URL(web.url).origin}/?big#res=v1/pods&ns=${NS}`);
  // the first chunk's rows, then all of them (waitForFunction polls once per frame)
  const allShown = await page.waitForFunction((n) => document.querySelector(".list .count")?.textContent === String(n) && window.performance.now(), PODS, { timeout: 60_000, polling: "raf" });
  const bigAll = (await allShown.jsonValue()) as number;
  const bigList = await page.evaluate(() => window.performance.getEntriesByName("kite-console:list")[0].startTime);
  const rendered = await page.evaluate(() => document.querySelectorAll("tr.row").length);
  await cdp.send("HeapProfiler.collectGarbage");
  const metrics = Object.fromEntries(((await cdp.send("Performance.getMetrics")).metrics as { name: string; value: number }[]).map((m) => [m.name, m.value]));

  // RATE label changes a second for SECONDS seconds, while the page records every frame's duration.
  await page.evaluate(() => {
    window.__frames = [];
    let last = window.performance.now();
    const tick = (t: number) => { window.__frames.push(t - last); last = t; window.__raf = window.requestAnimationFrame(tick); };
    window.__raf = window.requestAnimationFrame(tick);
  });
  progress(`${RATE} pod updates/s for ${SECONDS} s`);
  const t0 = performance.now();
  for (let i = 0; i < RATE * SECONDS; i++) {
    const due = t0 + (i * 1000) / RATE;
    if (due > performance.now()) await Bun.sleep(due - performance.now());
    void s.call("PATCH", `/api/v1/namespaces/${NS}/pods/pod-${String(i % PODS).padStart(5, "0")}`, { metadata: { labels: { round: String(i) } } }, { "content-type": "application/merge-patch+json" });
  }
  await Bun.sleep(500);
  const frames: number[] = await page.evaluate(() => { window.cancelAnimationFrame(window.__raf); return window.__frames.slice(1); });
  frames.sort((a, b) => a - b);
  const pct = (p: number) => frames[Math.min(frames.length - 1, Math.floor(frames.length * p))];

  // the page's assets: what index.html links, and the chunks those load on demand (the terminal's)
  const base = new URL(web.url).origin;
  const seen = new Set<string>();
  let queue: string[] = (await (await fetch(`${base}/`)).text()).match(/chunk-[a-z0-9]+\.(js|css)/g) ?? [];
  let raw = 0, gz = 0, eager = 0;
  const linked = new Set(queue);
  while (queue.length) {
    const next: string[] = [];
    for (const asset of queue) {
      if (seen.has(asset)) continue;
      seen.add(asset);
      const bytes = new Uint8Array(await (await fetch(`${base}/${asset}`)).arrayBuffer());
      raw += bytes.length;
      const z = gzipSync(bytes, { level: 9 }).length;
      gz += z;
      if (linked.has(asset)) eager += z;
      next.push(...(new TextDecoder().decode(bytes).match(/chunk-[a-z0-9]+\.(js|css)/g) ?? []));
    }
    queue = next;
  }
  await browser.close();
  await web.stop();
  console.log(`
| measure | value |
|---|---|
| first contentful paint (empty namespace, best of 5) | ${ms(best("paint"))} |
| live pod list shown (empty namespace, best of 5) | ${ms(best("list"))} |
| list of ${PODS} pods: first rows shown, all ${PODS} counted | ${ms(bigList)}, ${ms(bigAll)} (${rendered} rows in the DOM) |
| page JS heap with ${PODS} pods (after GC) | ${(metrics.JSHeapUsedSize / 2 ** 20).toFixed(1)} MiB |
| DOM nodes with ${PODS} pods | ${metrics.Nodes} |
| frames while ${RATE} events/s arrive (${frames.length} frames) | p50 ${pct(0.5).toFixed(1)} ms, p95 ${pct(0.95).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms, max ${frames[frames.length - 1].toFixed(1)} ms |
| assets (${seen.size} files) | ${(raw / 1024).toFixed(0)} KB, ${(gz / 1024).toFixed(0)} KB gzipped (${(eager / 1024).toFixed(0)} KB loaded with the page) |
`);
} finally {
  await s.stop();
}
