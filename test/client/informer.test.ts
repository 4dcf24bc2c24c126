// Shared informers against a real server: list then watch, bookmarks, resync, late handlers, relist on 410.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Client, Obj, WatchEvent, WatchOptions } from "../../pkg/client/client.ts";
import { InformerFactory, SharedInformer, type EventHandler } from "../../pkg/client/informer.ts";
import { setLogger } from "../../pkg/client/log.ts";
import { RESOURCES, type ResourceRef } from "../../pkg/client/resources.ts";
import { DeletedFinalStateUnknown, NAMESPACE_INDEX, namespaceIndex } from "../../pkg/client/store.ts";
import { createNamespace, until } from "../api/fixtures.ts";
import { clientFor } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let client: Client;
beforeAll(async () => {
  s = await startServer();
  client = await clientFor(s);
  await Promise.all(["inf-a", "inf-b", "inf-c", "inf-d"].map((ns) => createNamespace(s, ns)));
}, 60_000);
afterAll(async () => { await s?.stop(); });

const cm = (ns: string, name: string, data: Record<string, string> = {}, labels?: Record<string, string>) =>
  s.call("POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, labels }, data });

/** A handler that writes down what it hears, as `add a`, `update a`, `delete a` (`delete? a` for tombstones). */
function recorder() {
  const seen: string[] = [];
  const objs: Obj[] = [];
  const handler: EventHandler = {
    add: (o) => { seen.push(`add ${o.metadata.name}`); objs.push(o); },
    update: (old, o) => seen.push(`${old === o ? "resync" : "update"} ${o.metadata.name}`),
    delete: (o) => seen.push(o instanceof DeletedFinalStateUnknown ? `delete? ${o.key}` : `delete ${o.metadata.name}`),
  };
  return { seen, objs, handler };
}

test("lists, then watches from the list's version: adds, updates and deletes reach handlers and the store", async () => {
  await cm("inf-a", "one", { a: "1" });
  await cm("inf-a", "two");
  const inf = new SharedInformer(client, RESOURCES.configmaps, { namespace: "inf-a", indexers: { [NAMESPACE_INDEX]: namespaceIndex } });
  const r = recorder();
  inf.addEventHandler(r.handler);
  inf.start();
  expect(await inf.waitForSync()).toBe(true);
  expect(inf.hasSynced()).toBe(true);
  expect(r.seen.sort()).toEqual(["add kube-root-ca.crt", "add one", "add two"]);
  // List items get their kind, as watch objects have it.
  expect(r.objs.every((o) => o.kind === "ConfigMap" && o.apiVersion === "v1")).toBe(true);
  r.seen.length = 0;
  await cm("inf-a", "three");
  await s.call("PATCH", "/api/v1/namespaces/inf-a/configmaps/one", { data: { a: "2" } }, { "content-type": "application/merge-patch+json" });
  const del = await s.call("DELETE", "/api/v1/namespaces/inf-a/configmaps/two");
  await cm("inf-b", "elsewhere"); // another namespace: not this informer's
  await until(async () => r.seen.length >= 3, "three events");
  expect(r.seen).toEqual(["add three", "update one", "delete two"]);
  expect(inf.store.get("inf-a/one")?.data).toEqual({ a: "2" });
  expect(inf.store.get("inf-a/two")).toBeUndefined();
  expect(inf.store.byIndex(NAMESPACE_INDEX, "inf-a").length).toBe(3);
  expect(BigInt(inf.lastSyncResourceVersion)).toBeGreaterThanOrEqual(BigInt(del.body.metadata?.resourceVersion ?? 0));
  inf.stop();
  expect(await inf.waitForSync()).toBe(true); // synced stays synced
});

test("watches end after their timeout and resume from the last version; bookmarks advance it", async () => {
  const inf = new SharedInformer(client, RESOURCES.configmaps, { namespace: "inf-c", minWatchTimeoutSeconds: 1 });
  const r = recorder();
  inf.addEventHandler(r.handler);
  inf.start();
  await inf.waitForSync();
  const listed = BigInt(inf.lastSyncResourceVersion);
  // Writes elsewhere move the server's version; only a bookmark can carry it to this informer.
  const other = await cm("inf-b", "mover");
  const moved = BigInt(other.body.metadata.resourceVersion);
  expect(moved).toBeGreaterThan(listed);
  await until(async () => BigInt(inf.lastSyncResourceVersion) >= moved, "a bookmark past the other write", 8000);
  // Still watching after its watches were renewed: a new object arrives.
  await cm("inf-c", "later");
  await until(async () => r.seen.includes("add later"), "the add after re-watching", 5000);
  expect(r.seen.filter((x) => x.startsWith("add"))).toEqual(["add kube-root-ca.crt", "add later"]);
  inf.stop();
});

test("resync re-delivers every object as an update, only to handlers that asked", async () => {
  await cm("inf-d", "r1");
  const inf = new SharedInformer(client, RESOURCES.configmaps, { namespace: "inf-d" });
  const withResync = recorder(), without = recorder();
  inf.addEventHandler(withResync.handler, 1000);
  inf.addEventHandler(without.handler);
  inf.start();
  await inf.waitForSync();
  await until(async () => withResync.seen.includes("resync r1"), "a resync", 3000);
  expect(withResync.seen).toContain("resync kube-root-ca.crt");
  expect(without.seen.some((x) => x.startsWith("resync"))).toBe(false);
  inf.stop();
});

test("a handler added after start gets the current objects as adds; filters turn updates into adds and deletes", async () => {
  await cm("inf-b", "f1", {}, { pick: "yes" });
  await cm("inf-b", "f2", {}, { pick: "no" });
  const factory = new InformerFactory(client);
  const inf = factory.informerFor(RESOURCES.configmaps, { namespace: "inf-b" });
  expect(factory.informerFor(RESOURCES.configmaps, { namespace: "inf-b" })).toBe(inf); // shared
  expect(factory.informerFor(RESOURCES.configmaps, { namespace: "inf-a" })).not.toBe(inf);
  factory.start();
  expect(await factory.waitForCacheSync()).toBe(true);
  const late = recorder();
  inf.addEventHandler(late.handler);
  expect(late.seen.sort()).toEqual(["add elsewhere", "add f1", "add f2", "add kube-root-ca.crt", "add mover"]);
  const filtered = recorder();
  inf.addEventHandler({ ...filtered.handler, filter: (o) => (o instanceof DeletedFinalStateUnknown ? o.obj : o).metadata.labels?.pick === "yes" });
  expect(filtered.seen).toEqual(["add f1"]);
  const relabel = (name: string, pick: string) => s.call("PATCH", `/api/v1/namespaces/inf-b/configmaps/${name}`, { metadata: { labels: { pick } } }, { "content-type": "application/merge-patch+json" });
  await relabel("f2", "yes");
  await relabel("f1", "no");
  await until(async () => filtered.seen.length >= 3, "filtered events");
  expect(filtered.seen).toEqual(["add f1", "add f2", "delete f1"]);
  factory.stop();
});

/** A client whose new watches wait while `hold` is set: the informer misses what happens meanwhile. */
class HeldWatchClient {
  hold?: Promise<void>;
  waiting = false;
  constructor(readonly inner: Client) {}
  list(r: ResourceRef, o: object) { return this.inner.list(r, o); }
  async *watch(r: ResourceRef, o: WatchOptions): AsyncGenerator<WatchEvent> {
    if (this.hold) { this.waiting = true; await this.hold; this.waiting = false; }
    yield* this.inner.watch(r, o);
  }
}

test("a watch from a compacted version ends with 410: the informer lists again and hands out the difference", async () => {
  // No watch cache for pod templates: a watch from an old version reads the store's compacted history.
  const c = await startServer(["--etcd-compaction-interval=1s", "--watch-cache-sizes=podtemplates#0"]);
  try {
    const base = "/api/v1/namespaces/default/podtemplates";
    const pt = (name: string) => c.call("POST", base, { metadata: { name }, template: { spec: { containers: [{ name: "c", image: "nginx:1.21" }] } } });
    await pt("a");
    await pt("b");
    const held = new HeldWatchClient(await clientFor(c));
    const inf = new SharedInformer(held as unknown as Client, { ...RESOURCES.configmaps, resource: "podtemplates", kind: "PodTemplate" }, { namespace: "default", minWatchTimeoutSeconds: 1 });
    const r = recorder();
    inf.addEventHandler(r.handler);
    inf.start();
    await inf.waitForSync();
    expect(r.seen.sort()).toEqual(["add a", "add b"]);
    let release!: () => void;
    held.hold = new Promise((res) => { release = res; });
    await until(async () => held.waiting, "the informer's next watch to wait", 5000);
    const missedFrom = inf.lastSyncResourceVersion;
    await c.call("DELETE", `${base}/a`);
    await c.call("PATCH", `${base}/b`, { metadata: { labels: { x: "1" } } }, { "content-type": "application/merge-patch+json" });
    await pt("c");
    await until(async () => (await c.call("GET", `${base}?resourceVersion=${missedFrom}&resourceVersionMatch=Exact`)).status === 410, "compaction past the informer's version", 8000, 200);
    r.seen.length = 0;
    held.hold = undefined;
    release();
    await until(async () => r.seen.length >= 3, "the relist's changes", 8000);
    expect(r.seen.sort()).toEqual(["add c", "delete? default/a", "update b"]);
    expect(inf.store.listKeys().sort()).toEqual(["default/b", "default/c"]);
    inf.stop();
  } finally {
    await c.stop();
  }
}, 30_000);

test("a server that fails every list is retried with upstream's backoff (800 ms, doubling, jittered), not at once", async () => {
  let lists = 0;
  const failing = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => { lists++; return new Response("down", { status: 500 }); } });
  const logged: string[] = [];
  setLogger((m) => logged.push(m));
  const inf = new SharedInformer(await clientFor(s, { server: `http://127.0.0.1:${failing.port}` }), RESOURCES.configmaps);
  try {
    inf.start();
    await Bun.sleep(1500);
    // the first list at once, the second 800–1,600 ms later, the third not before 2,400 ms
    expect(lists).toBeGreaterThanOrEqual(1);
    expect(lists).toBeLessThanOrEqual(2);
    expect(logged.length).toBe(lists);
  } finally {
    inf.stop();
    setLogger((m) => console.warn(m));
    failing.stop(true);
  }
});
