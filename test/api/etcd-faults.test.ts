// Issue 6 item 5: a server on a 3-member etcd cluster through members going away and coming back.
// One member down: reads and writes go on. Two down (no quorum): /readyz fails with the etcd check named
// in ?verbose, writes fail with 5xx Status bodies within --request-timeout. Members back: the server
// recovers without a restart, and no acknowledged write is lost (a writer runs through all of it).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type EtcdCluster, startEtcdCluster } from "../helpers/etcd.ts";
import { type TestServer, startServer } from "../helpers/server.ts";
import { createNamespace, expectCode, until } from "./fixtures.ts";

setDefaultTimeout(40_000);

const NS = "faults";
const base = `/api/v1/namespaces/${NS}/configmaps`;
const REQUEST_TIMEOUT_MS = 5000;
let cluster: EtcdCluster;
let s: TestServer;

beforeAll(async () => {
  cluster = await startEtcdCluster(3);
  s = await startServer([`--etcd-servers=${cluster.endpoints.join(",")}`, "--request-timeout=5s", "--etcd-healthcheck-timeout=1s"]);
  await createNamespace(s, NS);
}, 40_000);
afterAll(async () => {
  await s?.stop();
  await cluster?.stop();
}, 30_000);

/** A background writer: one create at a time, remembering which were acknowledged (201). */
function startWriter() {
  const acked: string[] = [];
  const failed: { name: string; status: number; ms: number }[] = [];
  let stop = false;
  const done = (async () => {
    for (let i = 0; !stop; i++) {
      const name = `bg-${i}`;
      const t0 = performance.now();
      try {
        const r = await s.call("POST", base, { metadata: { name }, data: { i: String(i) } });
        if (r.status === 201) acked.push(name);
        else failed.push({ name, status: r.status, ms: performance.now() - t0 });
      } catch {
        failed.push({ name, status: 0, ms: performance.now() - t0 });
      }
      await Bun.sleep(20);
    }
  })();
  return { acked, failed, stop: async () => { stop = true; await done; } };
}

/**
 * A client watching the collection through all of it, as a reflector does: when the stream ends it
 * watches again from the last resourceVersion it saw. Collects the names of ADDED events.
 */
function startWatcher(fromRV: string) {
  const added: string[] = [];
  let rv = fromRV, reopened = 0, stop = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const done = (async () => {
    while (!stop) {
      try {
        const res = await s.req(`${base}?watch=true&resourceVersion=${rv}&timeoutSeconds=60`);
        if (res.status !== 200) { await res.text(); await Bun.sleep(200); reopened++; continue; }
        reader = res.body!.getReader() as ReadableStreamDefaultReader<Uint8Array>;
        const dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (!line) continue;
            const ev = JSON.parse(line);
            if (ev.type === "ERROR") continue;
            rv = ev.object.metadata.resourceVersion;
            if (ev.type === "ADDED") added.push(ev.object.metadata.name);
          }
        }
      } catch { /* reset: watch again */ }
      if (!stop) { reopened++; await Bun.sleep(200); }
    }
  })();
  return { added, reopened: () => reopened, stop: async () => { stop = true; await reader?.cancel().catch(() => {}); await done; } };
}

const readyz = async (verbose = false) => {
  const r = await s.req(`/readyz${verbose ? "?verbose" : ""}`);
  return { status: r.status, text: await r.text() };
};

/** Index of the member that leads the cluster now (etcd's maintenance status, through its gateway). */
async function leaderIndex(): Promise<number> {
  const ids: string[] = [];
  let leader = "";
  for (const ep of cluster.endpoints) {
    const r = (await (await fetch(`${ep}/v3/maintenance/status`, { method: "POST", body: "{}" })).json()) as { header: { member_id: string }; leader: string };
    ids.push(r.header.member_id);
    leader = r.leader;
  }
  const i = ids.indexOf(leader);
  if (i < 0) throw new Error(`no leader among ${ids.join(", ")} (leader ${leader})`);
  return i;
}

/** Waits until one of the given members reports a leader that is alive (up to 15 s). */
async function electedAmong(endpoints: string[]) {
  const end = Date.now() + 15_000;
  for (;;) {
    try {
      const ids: string[] = [];
      let leaderId = "";
      for (const ep of endpoints) {
        const r = (await (await fetch(`${ep}/v3/maintenance/status`, { method: "POST", body: "{}" })).json()) as { header: { member_id: string }; leader: string };
        ids.push(r.header.member_id);
        leaderId = r.leader;
      }
      if (ids.includes(leaderId)) return;
    } catch { /* a member is still restarting its view */ }
    if (Date.now() > end) throw new Error("no new etcd leader within 15 s");
    await Bun.sleep(100);
  }
}

describe("a 3-member etcd cluster losing members", () => {
  let leader = 0;
  let writer: ReturnType<typeof startWriter>;
  let watcher: ReturnType<typeof startWatcher>;
  const acked: string[] = [];

  test("one member down: reads and writes keep working", async () => {
    watcher = startWatcher((await s.call("GET", base)).body.metadata.resourceVersion);
    writer = startWriter();
    for (let i = 0; i < 5; i++) {
      expectCode(await s.call("POST", base, { metadata: { name: `before-${i}` } }), 201, `POST before-${i}`);
      acked.push(`before-${i}`);
    }
    // The leader crashes (SIGKILL): the harder case, an election follows.
    leader = await leaderIndex();
    await cluster.members[leader].stop(true);
    // The survivors elect a new leader first (about a second; longer on a loaded machine).
    await electedAmong(cluster.endpoints.filter((_, j) => j !== leader));
    const problems: string[] = [];
    for (let i = 0; i < 20; i++) {
      const c = await s.call("POST", base, { metadata: { name: `one-down-${i}` }, data: { i: String(i) } });
      if (c.status !== 201) { problems.push(`POST one-down-${i}: ${c.status} ${JSON.stringify(c.body).slice(0, 200)}`); continue; }
      acked.push(`one-down-${i}`);
      const g = await s.call("GET", `${base}/one-down-${i}`);
      if (g.status !== 200) problems.push(`GET one-down-${i}: ${g.status} ${JSON.stringify(g.body).slice(0, 200)}`);
      const u = await s.call("PUT", `${base}/one-down-${i}`, { ...c.body, data: { i: `${i}-updated` } });
      if (u.status !== 200) problems.push(`PUT one-down-${i}: ${u.status} ${JSON.stringify(u.body).slice(0, 200)}`);
    }
    const l = await s.call("GET", base);
    if (l.status !== 200) problems.push(`LIST: ${l.status}`);
    if (problems.length) throw new Error(`with one of three members down:\n${problems.join("\n")}`);
    const rz = await readyz();
    expect(rz.status).toBe(200);
  });

  test("two members down: /readyz fails naming etcd, writes fail fast with 5xx Status bodies", async () => {
    await cluster.members[(leader + 1) % 3].stop();
    // The health check has a 1 s deadline: readyz turns within a few seconds, and says why.
    const rz = (await until(async () => {
      const r = await readyz(true);
      return r.status !== 200 ? r : null;
    }, "/readyz to fail with two of three members down", 10_000, 100))!;
    expect(rz.text).toContain("[-]etcd failed");
    expect(rz.text).toContain("[+]ping ok");
    const tRz = performance.now();
    const r2 = await readyz();
    expect(r2.status).not.toBe(200);
    expect(performance.now() - tRz).toBeLessThan(3000);

    const results: { status: number; ms: number; body: any }[] = [];
    await Promise.all(Array.from({ length: 3 }, async (_, i) => {
      const t0 = performance.now();
      const r = await s.call("POST", base, { metadata: { name: `no-quorum-${i}` } });
      results.push({ status: r.status, ms: performance.now() - t0, body: r.body });
    }));
    console.log(`writes without quorum: ${results.map((r) => `${r.status} in ${r.ms.toFixed(0)} ms`).join(", ")}`);
    for (const r of results) {
      const what = `POST without quorum: ${r.status} after ${r.ms.toFixed(0)} ms: ${JSON.stringify(r.body).slice(0, 300)}`;
      if (r.status < 500 || r.status > 599) throw new Error(`expected a 5xx, got ${what}`);
      if (r.body?.kind !== "Status" || r.body?.status !== "Failure" || r.body?.code !== r.status) throw new Error(`expected a Status body, got ${what}`);
      // no hang past --request-timeout (plus a little for the response itself)
      if (r.ms > REQUEST_TIMEOUT_MS + 1500) throw new Error(`hung past --request-timeout=5s: ${what}`);
    }
  });

  test("members back: the server recovers without a restart, and no acknowledged write is lost", async () => {
    await Promise.all([cluster.members[leader].start(), cluster.members[(leader + 1) % 3].start()]);
    await until(async () => (await readyz()).status === 200, "/readyz to pass again once the members are back", 20_000, 100);
    const v = await readyz(true);
    expect(v.text).toContain("[+]etcd ok");
    // writes work again, and the watch cache follows (a list shows them at once)
    const problems: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await s.call("POST", base, { metadata: { name: `after-${i}` } });
      if (c.status !== 201) problems.push(`POST after-${i}: ${c.status} ${JSON.stringify(c.body).slice(0, 200)}`);
      else acked.push(`after-${i}`);
    }
    if (problems.length) throw new Error(`after recovery:\n${problems.join("\n")}`);
    // the background writer is back too: a few more of its creates are acknowledged
    const n0 = writer.acked.length;
    await until(async () => writer.acked.length >= n0 + 3, "the background writer's creates to succeed again", 10_000);
    await writer.stop();
    acked.push(...writer.acked);

    const l = await s.call("GET", base);
    expectCode(l, 200, `LIST ${base}`);
    const listed = new Set(l.body.items.map((o: any) => o.metadata.name));
    const lostInList = acked.filter((n) => !listed.has(n));
    const lostInGet: string[] = [];
    for (const n of acked) if ((await s.call("GET", `${base}/${n}`)).status !== 200) lostInGet.push(n);
    if (lostInList.length || lostInGet.length) {
      throw new Error(`acknowledged writes missing: from the list ${lostInList.join(", ") || "none"}; from GET ${lostInGet.join(", ") || "none"}`);
    }
    // The background writer saw failures only while quorum was lost, each within the request timeout.
    const slow = writer.failed.filter((f) => f.ms > REQUEST_TIMEOUT_MS + 1500);
    if (slow.length) throw new Error(`background writes that hung past --request-timeout: ${JSON.stringify(slow)}`);
    // A client watching through all of it saw every acknowledged create, once.
    await until(async () => acked.every((n) => watcher.added.includes(n)), "the watcher to see every acknowledged create", 5000).catch(() => {});
    await watcher.stop();
    const unseen = acked.filter((n) => !watcher.added.includes(n));
    const twice = watcher.added.filter((n, i) => watcher.added.indexOf(n) !== i);
    if (unseen.length || twice.length) throw new Error(`the watch (reopened ${watcher.reopened()} times) missed ${unseen.join(", ") || "none"}; saw twice ${twice.join(", ") || "none"}`);
    console.log(`watcher: reopened ${watcher.reopened()} times, saw all ${acked.length} acknowledged creates once`);
    console.log(`background writer: ${writer.acked.length} acknowledged, ${writer.failed.length} failed (statuses ${[...new Set(writer.failed.map((f) => f.status))].join(",") || "-"}); all ${acked.length} acknowledged writes present`);
  });
});
