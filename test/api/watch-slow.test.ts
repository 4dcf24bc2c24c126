// A watcher that stops reading is cut off with an ERROR event; it neither stalls the others nor grows
// the server's memory without bound.
import { expect, test } from "bun:test";
import { connect } from "node:tls";
import { readFileSync } from "node:fs";
import { startServer } from "../helpers/server.ts";

const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

test("a slow watcher is cut off while a fast one sees every event", async () => {
  const s = await startServer();
  const path = "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0";
  // The slow watcher: a raw TLS connection that sends the request and then reads nothing.
  const slow = connect({ host: "127.0.0.1", port: s.port, ca: s.ca, servername: "localhost" });
  await new Promise<void>((r) => slow.once("secureConnect", () => r()));
  slow.pause();
  slow.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`);
  // The fast watcher reads everything.
  const fast = await s.req(path);
  const reader = fast.body!.getReader();
  let fastText = "";
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      fastText += new TextDecoder().decode(value);
    }
  })();
  await Bun.sleep(200);
  const before = rss(s.proc.pid);
  const big = "x".repeat(16 * 1024);
  const N = Number(process.env.SLOW_N ?? 1500); // ~24 MB of events for the slow watcher: far over its 4 MB allowance
  for (let i = 0; i < N; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => s.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: `big-${i + j}` }, data: { v: big } })));
  }
  await Bun.sleep(500);
  const grown = rss(s.proc.pid) - before;
  // (the initial state also holds the server's kube-root-ca.crt)
  const added = fastText.split("\n").filter((l) => l.includes('"ADDED"') && l.includes('"name":"big-')).length;
  console.error(`fast watcher saw ${added} ADDED; RSS grew ${(grown / 1e6).toFixed(1)} MB`);
  expect(added).toBe(N);
  // The watch cache keeps each object decoded and serialized (a few copies of ~24 MB); the cut-off
  // watcher adds at most its 4 MB allowance on top, so growth stays within a fixed multiple of the data.
  expect(grown).toBeLessThan(8 * N * big.length + 64 * 1024 * 1024);
  // The slow connection, read now, ends with an ERROR event.
  slow.resume();
  let slowText = "";
  slow.on("data", (d) => { slowText += d.toString(); });
  await new Promise<void>((r) => { slow.once("end", () => r()); setTimeout(r, 3000); });
  // (booleans, so a failure does not print megabytes of events)
  expect(slowText.includes('"type":"ERROR"')).toBe(true);
  expect(slowText.includes("too slow")).toBe(true);
  reader.cancel();
  await reading.catch(() => {});
  slow.destroy();
  await s.stop();
}, 60_000);
