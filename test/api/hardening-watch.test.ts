// Issue 12, watches: non-reading watchers must not grow the server's memory without bound, a watch's
// timeoutSeconds must not overflow the timer, and an event that cannot be encoded ends that watch only.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "bun";
import { startEtcd } from "../helpers/etcd.ts";
import { BACKEND, startServer, type TestServer } from "../helpers/server.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const PROTOBUF = "application/vnd.kubernetes.protobuf";
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

let s: TestServer;
let serverLog = "";
/** Reads the server's output (a full pipe would block it) and keeps its tail for failure messages. */
async function drain(stream: ReadableStream<Uint8Array>) {
  const dec = new TextDecoder();
  for await (const c of stream) serverLog = (serverLog + dec.decode(c, { stream: true })).slice(-8_000);
}
function follow(server: TestServer) {
  void drain(server.proc.stdout as ReadableStream<Uint8Array>);
  void drain(server.proc.stderr as ReadableStream<Uint8Array>);
}

beforeAll(async () => {
  s = await startServer();
  follow(s);
});
afterAll(async () => { await s?.stop(); });

/** Reads a watch response until it ends or `ms` pass; the bytes read, and whether it ended. */
async function readFor(res: Response, ms: number): Promise<{ bytes: Uint8Array; ended: boolean }> {
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  let cancelled = false;
  const timer = setTimeout(() => { cancelled = true; reader.cancel().catch(() => {}); }, ms);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch { /* cancelled */ }
  clearTimeout(timer);
  return { bytes: Buffer.concat(chunks), ended: !cancelled };
}

// ---- timeoutSeconds

test("timeoutSeconds past the longest timer (2,147,484 s) is clamped: the watch stays open", async () => {
  const t0 = Date.now();
  const res = await s.req(`${CM}?watch=1&timeoutSeconds=2147484`);
  expect(res.status).toBe(200);
  setTimeout(() => void s.call("POST", CM, { metadata: { name: "clamped" } }), 300);
  const reader = res.body!.getReader();
  let text = "";
  const deadline = Date.now() + 1_500;
  let ended = false;
  while (Date.now() < deadline) {
    const r = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => null)]);
    if (!r) break;
    if (r.done) { ended = true; break; }
    text += new TextDecoder().decode(r.value);
  }
  await reader.cancel().catch(() => {});
  expect({ endedAfterMs: ended ? Date.now() - t0 : null }).toEqual({ endedAfterMs: null });
  expect(text).toContain('"name":"clamped"');
});

test("timeoutSeconds that is not an int64 is 400 BadRequest, as upstream's ParseInt", async () => {
  for (const [v, why] of [["abc", "invalid syntax"], ["1.5", "invalid syntax"], ["", "invalid syntax"], ["99999999999999999999", "value out of range"]]) {
    // (bounded: a server that takes the value opens a watch)
    const r = await s.req(`${CM}?watch=1&timeoutSeconds=${v}`, { signal: AbortSignal.timeout(5_000) });
    const body = (r.status === 200 ? {} : await r.json()) as { reason?: string; message?: string };
    expect({ v, status: r.status, reason: body.reason, message: body.message }).toEqual({ v, status: 400, reason: "BadRequest", message: `strconv.ParseInt: parsing "${v}": ${why}` });
  }
});

test("a negative timeoutSeconds ends the watch at once (as a negative Go timer fires at once); 1 ends it after a second", async () => {
  const neg = await s.req(`${CM}?watch=1&timeoutSeconds=-5`);
  expect(neg.status).toBe(200);
  const t0 = Date.now();
  expect((await readFor(neg, 5_000)).ended).toBe(true);
  expect(Date.now() - t0).toBeLessThan(2_000);
  const one = await s.req(`${CM}?watch=1&timeoutSeconds=1`);
  const t1 = Date.now();
  expect((await readFor(one, 5_000)).ended).toBe(true);
  expect(Date.now() - t1).toBeGreaterThan(800);
});

// ---- an event the representation cannot carry

/** Rewrites the stored ConfigMap `name` with a wrong-typed field while no server runs on dir. */
async function corruptStored(dir: string, name: string, etcd?: string) {
  const key = `/registry/configmaps/default/${name}`;
  if (etcd) {
    const k64 = Buffer.from(key).toString("base64");
    const got = (await (await fetch(`${etcd}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: k64 }) })).json()) as { kvs: { value: string }[] };
    const obj = JSON.parse(Buffer.from(got.kvs[0].value, "base64").toString());
    obj.metadata.clusterName = 5;
    const put = await fetch(`${etcd}/v3/kv/put`, { method: "POST", body: JSON.stringify({ key: k64, value: Buffer.from(JSON.stringify(obj)).toString("base64") }) });
    expect(put.status).toBe(200);
    return;
  }
  const db = new Database(join(dir, "state.db"));
  const row = db.query("SELECT rev, value FROM kv WHERE key = ? ORDER BY rev DESC LIMIT 1").get(key) as { rev: number; value: string };
  const obj = JSON.parse(row.value);
  obj.metadata.clusterName = 5;
  db.query("UPDATE kv SET value = ? WHERE key = ? AND rev = ?").run(JSON.stringify(obj), key, row.rev);
  db.close();
}

test("an event the protobuf encoder cannot encode ends that protobuf watch with a 500 ERROR; JSON watchers and the server go on", async () => {
  // A wrong-typed object can no longer be created; one already stored (an older server, a restore)
  // still goes out in its DELETED event, through the watch cache's fan-out.
  const etcd = BACKEND === "etcd" ? await startEtcd() : undefined;
  const first = await startServer(etcd ? [`--etcd-servers=${etcd.endpoints[0]}`] : []);
  expect((await first.call("POST", CM, { metadata: { name: "bad" }, data: { a: "b" } })).status).toBe(201);
  expect(await first.stop()).toBe(0);
  await corruptStored(first.dataDir, "bad", etcd?.endpoints[0]);
  const t = await startServer(etcd ? [`--etcd-servers=${etcd.endpoints[0]}`] : [], first.dataDir);
  follow(t);
  try {
    const rv = (await t.call("GET", CM)).body.metadata.resourceVersion;
    // (bookmarks allowed: a protobuf watch has no filler byte to commit its headers before an event)
    const pb = await t.req(`${CM}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`, { headers: { Accept: PROTOBUF } });
    const js = await t.req(`${CM}?watch=1&resourceVersion=${rv}`);
    expect([pb.status, js.status]).toEqual([200, 200]);
    const pbRead = readFor(pb, 10_000);
    const jsRead = readFor(js, 3_000);
    expect((await t.call("DELETE", `${CM}/bad`)).status).toBe(200);
    expect((await t.call("POST", CM, { metadata: { name: "after" } })).status).toBe(201);
    const p = await pbRead;
    // The protobuf watch ends, its last event an ERROR carrying a 500 InternalError Status.
    expect(p.ended).toBe(true);
    const text = Buffer.from(p.bytes).toString("latin1");
    expect(text).toContain("ERROR");
    expect(text).toContain("InternalError");
    expect(text).toContain("unable to encode watch event");
    // The JSON watcher saw both events; the server is alive and a new protobuf watch works.
    const j = new TextDecoder().decode((await jsRead).bytes);
    expect(j).toContain('"type":"DELETED"');
    expect(j).toContain('"name":"after"');
    expect(t.proc.exitCode).toBeNull();
    expect((await t.req("/readyz")).status).toBe(200);
    const again = await t.req(`${CM}?watch=1&resourceVersion=0&timeoutSeconds=1&allowWatchBookmarks=true`, { headers: { Accept: PROTOBUF } });
    expect(again.status).toBe(200);
    expect(Buffer.from((await readFor(again, 5_000)).bytes).toString("latin1")).toContain("after");
  } catch (e) {
    throw new Error(`${(e as Error).message}\nserver exit code ${t.proc.exitCode}; its output:\n${serverLog.slice(-3_000)}`);
  } finally {
    await t.stop();
    await etcd?.stop();
  }
}, 60_000);

// ---- watchers that never read

interface RawWatch { sock: Socket<undefined>; received: number; tail: string; modified: number; closed: boolean }

const MODIFIED = '"type":"MODIFIED"';

/** A watch on its own TLS connection that stops reading once the response has begun (until `sock.resume()`). */
function rawWatch(server: TestServer, path: string): Promise<RawWatch> {
  return new Promise((resolve, reject) => {
    const w = { received: 0, tail: "", modified: 0, closed: false } as RawWatch;
    Bun.connect({
      hostname: "127.0.0.1", port: server.port, tls: { ca: server.ca },
      socket: {
        open(sock) { sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`); },
        data(sock, d) {
          if (w.received === 0) {
            sock.pause();
            w.sock = sock;
            resolve(w);
          }
          w.received += d.length;
          // MODIFIED events counted across reads: the carried tail is too short to hold a whole marker.
          const text = w.tail.slice(-(MODIFIED.length - 1)) + d.toString("latin1");
          w.modified += text.split(MODIFIED).length - 1;
          w.tail = (w.tail + d.toString("latin1")).slice(-4096);
        },
        close() { w.closed = true; },
        error(_s, e) { reject(e); },
        connectError(_s, e) { reject(e); },
      },
    }).catch(reject);
  });
}

const WATCHERS = Number(process.env.HARDENING_WATCHERS ?? 250);
const UPDATES = 80;
const VALUE = 200 * 1024;

test(`${WATCHERS} watchers that never read, under ${UPDATES} updates of a 200 KB ConfigMap: RSS stays bounded, the server keeps serving, the watchers are cut off`, async () => {
  const name = "big";
  expect((await s.call("POST", CM, { metadata: { name }, data: { v: "0".repeat(VALUE) } })).status).toBe(201);
  const rv = (await s.call("GET", CM)).body.metadata.resourceVersion;
  const path = `${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=300`;
  const raw: RawWatch[] = [];
  for (let i = 0; i < WATCHERS; i++) raw.push(await rawWatch(s, path));
  // One watcher that reads everything: it must see every update.
  const reader = (await s.req(path)).body!.getReader();
  let seen = 0;
  const reading = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      for (let i; (i = buf.indexOf("\n")) >= 0; buf = buf.slice(i + 1)) if (buf.slice(0, i).includes('"type":"MODIFIED"')) seen++;
    }
  })().catch(() => {});

  await Bun.sleep(300);
  const before = rss(s.proc.pid);
  let peak = before, slowest = 0;
  let writing = true;
  const sampler = (async () => {
    while (writing) {
      peak = Math.max(peak, rss(s.proc.pid));
      // The server keeps serving: /readyz and a GET answer promptly while the updates stream.
      const t0 = performance.now();
      const [ready, get] = await Promise.all([s.req("/readyz"), s.req(`${CM}/${name}`)]);
      await Promise.all([ready.arrayBuffer(), get.arrayBuffer()]);
      expect([ready.status, get.status]).toEqual([200, 200]);
      slowest = Math.max(slowest, performance.now() - t0);
      await Bun.sleep(100);
    }
  })();
  for (let i = 1; i <= UPDATES; i++) {
    const r = await s.call("PUT", `${CM}/${name}`, { metadata: { name }, data: { v: String(i % 10).repeat(VALUE) } });
    expect(r.status).toBe(200);
  }
  // A sample reads again. A watcher that was cut off gets what it had, an ERROR and the end of the
  // response (the connection stays open for another request) — or, once it had read nothing for 10 s
  // after the cut-off, it was disconnected. One the kernel's buffers kept ahead of its 4 MB backlog was
  // never cut off: it gets every update and streams on. None may be left without the rest of its stream.
  const sample = raw.slice(0, 10);
  for (const w of sample) w.sock.resume();
  await Bun.sleep(1_000);
  writing = false;
  await sampler;
  peak = Math.max(peak, rss(s.proc.pid));
  console.error(`${WATCHERS} non-reading watchers × ${UPDATES} updates of 200 KB: RSS ${(before / 1e6).toFixed(0)} MB before, peak ${(peak / 1e6).toFixed(0)} MB; slowest /readyz + GET ${slowest.toFixed(0)} ms; the reader saw ${seen}`);

  // Each non-reading watcher was sent 16 MB: past what the kernel takes and its 4 MB backlog, so it is
  // cut off. Its backlog is kept by reference (shared by all of them), not copied per watcher.
  expect(peak - before).toBeLessThan(300 * 1024 * 1024);
  expect(slowest).toBeLessThan(1_000);
  const deadline = Date.now() + 10_000;
  while (seen < UPDATES && Date.now() < deadline) await Bun.sleep(50);
  expect(seen).toBe(UPDATES);

  const ended = (w: RawWatch) => w.tail.endsWith("\r\n0\r\n\r\n");
  const settled = (w: RawWatch) => ended(w) || w.closed || w.modified === UPDATES;
  const until = Date.now() + 20_000;
  while (!sample.every(settled) && Date.now() < until) await Bun.sleep(50);
  for (const w of sample) {
    const outcome = { error: w.tail.includes('"type":"ERROR"') && w.tail.includes("too slow"), ended: ended(w), closed: w.closed, modified: w.modified };
    if (outcome.ended) expect(outcome.error).toBe(true);
    else if (!w.closed) expect(outcome).toEqual({ error: false, ended: false, closed: false, modified: UPDATES });
  }
  for (const w of raw) w.sock.terminate();
  await reader.cancel().catch(() => {});
  await reading;
  expect(s.proc.exitCode).toBeNull();
}, 120_000);
