// Issue 12, finding 11, the store's side: a LIST the store answers (kubectl's `limit=500` without a
// resourceVersion) read and decoded its page in one piece — ~1 s of /readyz stall on SQLite and ~5 s on
// etcd for 350 MB. Pod templates of ~1 MB (no part of the server watches them: no watch cache holds them
// decoded), listed while /readyz is probed.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { configText, probeReadyz } from "../helpers/large-list.ts";
import { BACKEND, startServer, type TestServer } from "../helpers/server.ts";
import { createNamespace } from "./fixtures.ts";

setDefaultTimeout(60_000);

// etcd's JSON gateway made a whole-collection read cost more CPU per MB: half the objects show it there.
const NS = "storelist", COUNT = BACKEND === "etcd" ? 40 : 80, KB = 1000;
/**
 * The server's CPU time while one /readyz probe waited: the longest stretch a list kept the event loop.
 * Before the fix 230 ms on SQLite at load average 22 (wall 1.3 s), more on etcd; after it 30–80 ms. CPU time,
 * not the probe's wall time, is bounded: on a loaded machine a probe also waits for a CPU (an idle process
 * here saw 50–450 ms gaps at load average 16).
 */
const MAX_BUSY_MS = 150;
const PATH = `/api/v1/namespaces/${NS}/podtemplates`;
const name = (i: number) => `big-${String(i).padStart(3, "0")}`;

/** A pod template of about KB kilobytes: its container's arguments are lines of config text. */
const template = (i: number) => ({
  metadata: { name: name(i) },
  template: { spec: { containers: [{ name: "c", image: "busybox", args: Array.from({ length: KB / 16 }, (_, k) => configText(i * 100 + k, 16 * 1024)) }] } },
});

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await createNamespace(s, NS);
  let next = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let i = next++; i < COUNT; i = next++) {
      const r = await s.req(PATH, { method: "POST", json: template(i) });
      if (r.status !== 201) throw new Error(`POST ${name(i)}: ${r.status} ${(await r.text()).slice(0, 300)}`);
      await r.arrayBuffer();
    }
  }));
}, 120_000);
afterAll(async () => { await s?.stop(); }, 30_000);

/** GETs a list while /readyz is probed: the list, and a failure if the server was busy through a probe. */
async function listWhileProbing(query: string) {
  const probe = probeReadyz(s, 5, s.proc.pid);
  const r = await s.req(`${PATH}${query}`, { headers: { "Accept-Encoding": "identity" } });
  expect(r.status).toBe(200);
  const body = await r.arrayBuffer();
  await probe.stop(); // before parsing, which holds this process's event loop (and the probes)
  const busy = Math.max(...probe.cpu);
  if (busy > MAX_BUSY_MS) {
    throw new Error(`${query}: the server was busy ${busy} ms while one /readyz probe waited (bound ${MAX_BUSY_MS} ms; slowest probe ${Math.max(...probe.times).toFixed(0)} ms of ${probe.times.length})`);
  }
  expect(probe.times.length).toBeGreaterThan(3);
  return JSON.parse(Buffer.from(body).toString());
}

const all = Array.from({ length: COUNT }, (_, i) => name(i));
const names = (list: any) => list.items.map((o: any) => o.metadata.name);

describe("LISTs of a large collection do not stall the server", () => {
  test("from the store: limit=500 without a resourceVersion", async () => {
    const list = await listWhileProbing("?limit=500");
    expect(names(list)).toEqual(all);
    expect(list.items[7].template.spec.containers[0].args).toEqual(template(7).template.spec.containers[0].args);
    expect(list.metadata.continue).toBeUndefined();
  });

  test("a chunk read in several pages counts what remains after it", async () => {
    const first: any = await (await s.req(`${PATH}?limit=15`)).json();
    expect(names(first)).toEqual(all.slice(0, 15));
    expect(first.metadata.remainingItemCount).toBe(COUNT - 15);
    const next: any = await (await s.req(`${PATH}?limit=15&continue=${encodeURIComponent(first.metadata.continue)}`)).json();
    expect(names(next)).toEqual(all.slice(15, 30));
    expect(next.metadata.remainingItemCount).toBe(COUNT - 30);
    expect(next.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });
});
