// The Store conformance suite on a real etcd (Debian's etcd-server), plus what only etcd has:
// keys as given on the wire, several stores on one etcd, and members going away.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EtcdStore } from "../../pkg/storage/etcd.ts";
import { StoreError, type WatchEvent } from "../../pkg/storage/store.ts";
import { type EtcdProcess, freePort, startEtcd, startEtcdCluster } from "../helpers/etcd.ts";
import { runStoreConformance } from "./conformance.ts";

let etcd: EtcdProcess;
let n = 0;
beforeAll(async () => { etcd = await startEtcd(); });
afterAll(async () => { await etcd?.stop(); });

// One etcd for the file; each store gets its own root, so every test starts empty.
runStoreConformance("etcd", async () => new EtcdStore({ endpoints: etcd.endpoints, keyPrefix: `/kite-test-${++n}` }));

describe("etcd store", () => {
  test("keys and values are written as given", async () => {
    const s = new EtcdStore({ endpoints: etcd.endpoints });
    await s.create("/registry/configmaps/default/raw", '{"kind":"ConfigMap"}');
    const b64 = (x: string) => Buffer.from(x).toString("base64");
    const res = await fetch(`${etcd.endpoints[0]}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: b64("/registry/configmaps/default/raw") }) });
    const body = (await res.json()) as { kvs: { value: string }[] };
    expect(Buffer.from(body.kvs[0].value, "base64").toString()).toBe('{"kind":"ConfigMap"}');
    await s.close();
  });

  test("two stores on one etcd: CAS holds across them and a watch sees the other's writes", async () => {
    const root = `/kite-two-${++n}`;
    const a = new EtcdStore({ endpoints: etcd.endpoints, keyPrefix: root });
    const b = new EtcdStore({ endpoints: etcd.endpoints, keyPrefix: root });
    const events: WatchEvent[] = [];
    const w = await b.watch("/x/", await b.currentRevision(), (e) => events.push(e));
    const kv = await a.create("/x/1", "1");
    expect((await b.get("/x/1"))!.value).toBe("1");
    const r = await Promise.allSettled([a.update("/x/1", "a", kv.modRevision), b.update("/x/1", "b", kv.modRevision)]);
    expect(r.filter((x) => x.status === "fulfilled").length).toBe(1);
    const lost = r.find((x) => x.status === "rejected") as PromiseRejectedResult;
    expect((lost.reason as StoreError).code).toBe("Conflict");
    expect((lost.reason as StoreError).currentRevision).toBe(kv.modRevision + 1);
    const t0 = Date.now();
    while (events.length < 2 && Date.now() - t0 < 2000) await Bun.sleep(5);
    expect(events.map((e) => e.type)).toEqual(["PUT", "PUT"]);
    w.close();
    await a.close();
    await b.close();
  });

  test("a foreign writer's multi-key txn reaches watches and caches whole (its events share a revision)", async () => {
    const root = `/kite-txn-${++n}`;
    const s = new EtcdStore({ endpoints: etcd.endpoints, keyPrefix: root });
    const watched: string[] = [], cached: string[] = [];
    const w = await s.watch("/t/", await s.currentRevision(), (e) => watched.push(e.kv.key));
    const c = await s.listAndWatch!("/t/", () => {}, (e) => cached.push(e.kv.key), () => {});
    const b64 = (x: string) => Buffer.from(x).toString("base64");
    const put = (k: string) => ({ request_put: { key: b64(`${root}${k}`), value: b64("v") } });
    const res = await fetch(`${etcd.endpoints[0]}/v3/kv/txn`, { method: "POST", body: JSON.stringify({ success: [put("/t/a"), put("/t/b"), put("/t/c")] }) });
    expect(res.status).toBe(200);
    await s.create("/t/d", "v");
    for (let i = 0; i < 100 && (watched.length < 4 || cached.length < 4); i++) await Bun.sleep(20);
    expect(watched).toEqual(["/t/a", "/t/b", "/t/c", "/t/d"]);
    expect(cached).toEqual(["/t/a", "/t/b", "/t/c", "/t/d"]);
    w.close();
    c.close();
    await s.close();
  });

  test("concurrent currentRevision calls (answered in batches) each see every write acknowledged before them", async () => {
    const root = `/kite-rev-${++n}`;
    const a = new EtcdStore({ endpoints: etcd.endpoints, keyPrefix: root });
    const b = new EtcdStore({ endpoints: etcd.endpoints, keyPrefix: root });
    for (let i = 0; i < 20; i++) {
      const ack = await a.create(`/r/${i}`, "v");
      const revs = await Promise.all(Array.from({ length: 50 }, () => b.currentRevision()));
      for (const r of revs) expect(r).toBeGreaterThanOrEqual(ack.modRevision);
    }
    await a.close();
    await b.close();
  });

  test("listAndWatch: the list at the shared watch's position, then the changes, and progress reaches writes made elsewhere", async () => {
    const root = `/kite-law-${++n}`;
    const a = new EtcdStore({ endpoints: etcd.endpoints, keyPrefix: root });
    const b = new EtcdStore({ endpoints: etcd.endpoints, keyPrefix: root });
    await a.create("/cm/1", "one");
    await a.create("/other/1", "x");
    let listed: string[] = [], listRev = 0;
    const events: WatchEvent[] = [];
    const w = await b.listAndWatch!("/cm/", (l) => { listed = l.items.map((kv) => kv.key); listRev = l.revision; }, (e) => events.push(e), () => {});
    expect(listed).toEqual(["/cm/1"]);
    const c2 = await a.create("/cm/2", "two");
    await a.delete("/cm/1");
    // A write under another prefix moves the position too: a consistent read there can be answered here.
    const other = await a.create("/other/2", "y");
    expect(await w.progress!(other.modRevision, 3000)).toBeGreaterThanOrEqual(other.modRevision);
    expect(events.map((e) => [e.type, e.kv.key])).toEqual([["PUT", "/cm/2"], ["DELETE", "/cm/1"]]);
    expect(events[0].kv.modRevision).toBe(c2.modRevision);
    // no prev_kv is asked for (a read in etcd per event): a DELETE is its key and revision, the cache has the rest
    expect(events[1].kv.value).toBe("");
    expect(events[0].prev).toBeUndefined();
    expect(events.every((e) => e.kv.modRevision > listRev)).toBe(true);
    w.close();
    await a.close();
    await b.close();
  });

  test("an unreachable etcd fails with Unavailable, promptly", async () => {
    const s = new EtcdStore({ endpoints: [`http://127.0.0.1:${await freePort()}`], requestTimeoutMs: 3000 });
    const t0 = Date.now();
    let code = "";
    try { await s.get("/a"); } catch (e) { code = (e as StoreError).code; }
    expect(code).toBe("Unavailable");
    try { await s.create("/a", "1"); } catch (e) { code = (e as StoreError).code; }
    expect(code).toBe("Unavailable");
    expect(Date.now() - t0).toBeLessThan(3000);
    await s.close();
  }, 10_000);

  test("3-member cluster: with one member stopped, reads, writes and a watch carry on", async () => {
    const c = await startEtcdCluster(3);
    try {
      const s = new EtcdStore({ endpoints: c.endpoints, requestTimeoutMs: 5000 });
      const events: WatchEvent[] = [];
      const w = await s.watch("/f/", await s.currentRevision(), (e) => events.push(e));
      await s.create("/f/1", "1");
      // Stop the member the store talks to now, so both requests and the watch must move.
      const m = c.members.find((x) => x.endpoint === s.endpoint())!;
      await m.stop();
      await s.create("/f/2", "2");
      expect((await s.list("/f/")).items.map((i) => i.value)).toEqual(["1", "2"]);
      const t0 = Date.now();
      while (events.length < 2 && Date.now() - t0 < 5000) await Bun.sleep(10);
      expect(events.map((e) => e.kv.value)).toEqual(["1", "2"]);
      await m.start();
      w.close();
      await s.close();
    } finally {
      await c.stop();
    }
  }, 30_000);
});
