// The etcd client's HTTP/1.1 pool (pkg/storage/http1.ts) against a real local server: answers with a
// length and chunked, connections kept and reused, what a failure says about whether the request went out.
import { afterAll, expect, test } from "bun:test";
import { Http1Error, Http1Pool } from "../../pkg/storage/http1.ts";
import { freePort } from "../helpers/server.ts";

let connections = 0;
const server = Bun.serve({
  hostname: "127.0.0.1", port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    if (path === "/echo") return new Response(`{"got":${body}}`, { headers: { "content-type": "application/json" } });
    if (path === "/chunked") {
      // a streamed body goes out chunked; big enough to span several reads
      const part = "x".repeat(50_000);
      return new Response(new ReadableStream({ async pull(c) { c.enqueue(`"${part}`); await Bun.sleep(5); c.enqueue(`${part}"`); c.close(); } }));
    }
    if (path === "/many") {
      // thousands of small chunks: sizes, data and CRLFs split across reads at every place
      let i = 0;
      return new Response(new ReadableStream({ async pull(c) { c.enqueue(`${i % 10}`.repeat(1 + (i % 7))); if (++i % 100 === 0) await Bun.sleep(1); if (i === 3000) c.close(); } }));
    }
    if (path === "/empty") return new Response(null, { status: 204 });
    if (path === "/slow") { await Bun.sleep(2000); return new Response("{}"); }
    return new Response("no", { status: 404 });
  },
});
const origin = `http://127.0.0.1:${server.port}`;
const tcp = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open() { connections++; }, data() {} } });
afterAll(() => { server.stop(true); tcp.stop(true); });

test("answers with a length and chunked answers are read whole", async () => {
  const pool = new Http1Pool();
  const r = await pool.post(`${origin}/echo`, JSON.stringify({ ü: "é" }), 5000);
  expect(r.status).toBe(200);
  expect(JSON.parse(r.text)).toEqual({ got: { ü: "é" } });
  const c = await pool.post(`${origin}/chunked`, "{}", 5000);
  expect(c.text.length).toBe(100_002);
  const many = await pool.post(`${origin}/many`, "{}", 5000);
  expect(many.text).toBe(Array.from({ length: 3000 }, (_, i) => `${i % 10}`.repeat(1 + (i % 7))).join(""));
  expect(await pool.post(`${origin}/empty`, "{}", 5000)).toEqual({ status: 204, text: "" });
  expect((await pool.post(`${origin}/nope`, "{}", 5000)).status).toBe(404);
  pool.close();
});

test("concurrent requests each get their own answer over kept-alive connections", async () => {
  const pool = new Http1Pool();
  const rounds = await Promise.all(Array.from({ length: 300 }, (_, i) => pool.post(`${origin}/echo`, String(i), 5000)));
  expect(rounds.map((r) => JSON.parse(r.text).got)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  pool.close();
});

test("a refused connection reports the request unsent; a timeout after sending reports it sent", async () => {
  const pool = new Http1Pool();
  const refused = await pool.post(`http://127.0.0.1:${await freePort()}/echo`, "{}", 2000).catch((e) => e);
  expect(refused).toBeInstanceOf(Http1Error);
  expect(refused.code).toBe("ConnectionRefused");
  expect(refused.sent).toBe(false);

  const t0 = Date.now();
  const slow = await pool.post(`${origin}/slow`, "{}", 300).catch((e) => e);
  expect(slow.code).toBe("Timeout");
  expect(slow.sent).toBe(true);
  expect(Date.now() - t0).toBeLessThan(1500);

  // a server that accepts and never answers
  const silent = await pool.post(`http://127.0.0.1:${tcp.port}/echo`, "{}", 300).catch((e) => e);
  expect(silent.code).toBe("Timeout");
  expect(connections).toBe(1);
  pool.close();
  expect((await pool.post(`${origin}/echo`, "{}", 300).catch((e) => e)).code).toBe("Closed");
});

test("after close() no connection is left open: a process that used the pool exits", async () => {
  const script = `import { Http1Pool } from ${JSON.stringify(`${import.meta.dir}/../../pkg/storage/http1.ts`)};
const pool = new Http1Pool();
await Promise.all(Array.from({ length: 5 }, () => pool.post("${origin}/echo", "1", 2000)));
pool.close();`;
  const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => p.kill(), 5000);
  const code = await p.exited;
  clearTimeout(timer);
  expect(p.signalCode).toBeNull();
  expect(code).toBe(0);
});

test("with every connection busy, a request waits for one only as long as its timeout", async () => {
  const pool = new Http1Pool();
  const busy = Array.from({ length: 128 }, () => pool.post(`${origin}/slow`, "{}", 5000));
  const t0 = Date.now();
  const late = await pool.post(`${origin}/echo`, "1", 200).catch((e) => e);
  expect(late).toBeInstanceOf(Http1Error);
  expect(late.code).toBe("Timeout");
  expect(late.sent).toBe(false);
  expect(Date.now() - t0).toBeLessThan(1000);
  expect((await Promise.all(busy)).every((r) => r.status === 200)).toBe(true);
  // and once they are done, connections are free again
  expect(JSON.parse((await pool.post(`${origin}/echo`, "2", 1000)).text)).toEqual({ got: 2 });
  pool.close();
});
