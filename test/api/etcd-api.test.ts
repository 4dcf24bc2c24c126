// Issue 6 items 2 and 3: a representative slice of the API, run with the same assertions against a server
// on SQLite and one on etcd (create/get/list, update conflicts, delete, label selectors, chunked lists
// with continue, watch ADDED/MODIFIED/DELETED, namespace deletion); and on etcd, keys and values as
// upstream lays them out, seen with etcdctl (or etcd's own gateway when etcdctl is missing).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type EtcdProcess, etcdctlBinary, startEtcd } from "../helpers/etcd.ts";
import { type TestServer, startServer } from "../helpers/server.ts";
import { NAMESPACE_BUILTINS, createNamespace, expectCode, expectServerMeta, expectStatus, openWatch, until } from "./fixtures.ts";

setDefaultTimeout(30_000);

const container = { name: "c", image: "nginx:1.21" };

/** The names in a list of this suite's configmaps (the namespace's kube-root-ca.crt left out). */
const mine = (list: any): string[] => list.items.map((o: any) => o.metadata.name).filter((n: string) => n !== NAMESPACE_BUILTINS.configmaps);

/** The slice of API behaviour, asserted the same way on each backend. */
function apiSlice(backend: "sqlite" | "etcd", start: () => Promise<TestServer>) {
  describe(`API on ${backend}`, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await start();
      for (const ns of ["crud", "sel", "chunk", "watch"]) await createNamespace(s, ns);
    }, 30_000);
    afterAll(async () => { await s?.stop(); }, 30_000);

    test("create, get, list, update (and a stale update → 409), delete", async () => {
      const base = "/api/v1/namespaces/crud/configmaps";
      const c = await s.call("POST", base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", labels: { a: "1" } }, data: { k: "v1" } });
      expectCode(c, 201, `POST ${base}`);
      expectServerMeta(c.body, `POST ${base}`);
      const dup = await s.call("POST", base, { metadata: { name: "cm" } });
      expectStatus(dup, 409, "AlreadyExists", `second POST ${base}`);

      const g = await s.call("GET", `${base}/cm`);
      expectCode(g, 200, `GET ${base}/cm`);
      expect(g.body.metadata.uid).toBe(c.body.metadata.uid);
      expect(g.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
      expect(g.body.data).toEqual({ k: "v1" });

      const l = await s.call("GET", base);
      expectCode(l, 200, `LIST ${base}`);
      expect(l.body.kind).toBe("ConfigMapList");
      expect(mine(l.body)).toEqual(["cm"]);
      expect(Number(l.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(c.body.metadata.resourceVersion));

      const u = await s.call("PUT", `${base}/cm`, { ...g.body, data: { k: "v2" } });
      expectCode(u, 200, `PUT ${base}/cm`);
      expect(Number(u.body.metadata.resourceVersion)).toBeGreaterThan(Number(g.body.metadata.resourceVersion));
      expect(u.body.metadata.uid).toBe(c.body.metadata.uid);
      const stale = await s.call("PUT", `${base}/cm`, { ...g.body, data: { k: "stale" } });
      const st = expectStatus(stale, 409, "Conflict", `PUT ${base}/cm with a stale resourceVersion`);
      expect(st.message).toContain("the object has been modified");
      expect((await s.call("GET", `${base}/cm`)).body.data).toEqual({ k: "v2" });

      const patched = await s.call("PATCH", `${base}/cm`, { data: { k: "v3" } }, { "Content-Type": "application/merge-patch+json" });
      expectCode(patched, 200, `PATCH ${base}/cm`);
      expect(patched.body.data).toEqual({ k: "v3" });

      const d = await s.call("DELETE", `${base}/cm`);
      expectCode(d, 200, `DELETE ${base}/cm`);
      expectStatus(await s.call("GET", `${base}/cm`), 404, "NotFound", `GET ${base}/cm after delete`);
      expectStatus(await s.call("DELETE", `${base}/cm`), 404, "NotFound", `second DELETE ${base}/cm`);
      expectStatus(await s.call("PUT", `${base}/cm`, { ...u.body, metadata: { ...u.body.metadata, resourceVersion: undefined } }), 404, "NotFound", `PUT ${base}/cm after delete`);
    });

    test("label selectors on lists (=, !=, in, notin, exists, !exists)", async () => {
      const base = "/api/v1/namespaces/sel/pods";
      const pods: [string, Record<string, string>][] = [
        ["p1", { tier: "web", env: "prod" }], ["p2", { tier: "web", env: "dev" }], ["p3", { tier: "db", env: "prod" }], ["p4", { tier: "cache" }],
      ];
      for (const [name, labels] of pods) expectCode(await s.call("POST", base, { metadata: { name, labels }, spec: { containers: [container] } }), 201, `POST pod ${name}`);
      const sel = async (q: string) => {
        const r = await s.call("GET", `${base}?labelSelector=${encodeURIComponent(q)}`);
        expectCode(r, 200, `LIST ${base}?labelSelector=${q}`);
        return r.body.items.map((o: any) => o.metadata.name);
      };
      expect(await sel("tier=web")).toEqual(["p1", "p2"]);
      expect(await sel("tier!=web")).toEqual(["p3", "p4"]);
      expect(await sel("tier in (db,cache)")).toEqual(["p3", "p4"]);
      expect(await sel("env notin (prod)")).toEqual(["p2", "p4"]);
      expect(await sel("env")).toEqual(["p1", "p2", "p3"]);
      expect(await sel("!env")).toEqual(["p4"]);
      expect(await sel("tier=web,env=prod")).toEqual(["p1"]);
      const bad = await s.call("GET", `${base}?labelSelector=${encodeURIComponent("tier in web")}`);
      expectStatus(bad, 400, "BadRequest", "LIST with a malformed label selector");
      // a selector in a chunked list still fills pages
      const page = await s.call("GET", `${base}?labelSelector=env%3Dprod&limit=1`);
      expectCode(page, 200, "LIST env=prod limit=1");
      expect(page.body.items.map((o: any) => o.metadata.name)).toEqual(["p1"]);
      const next = await s.call("GET", `${base}?labelSelector=env%3Dprod&limit=1&continue=${encodeURIComponent(page.body.metadata.continue)}`);
      expect(next.body.items.map((o: any) => o.metadata.name)).toEqual(["p3"]);
    });

    test("chunked list: limit and continue give every item once, from one snapshot", async () => {
      const base = "/api/v1/namespaces/chunk/configmaps";
      for (let i = 0; i < 7; i++) expectCode(await s.call("POST", base, { metadata: { name: `c${i}` } }), 201, `POST c${i}`);
      const first = await s.call("GET", `${base}?limit=3`);
      expectCode(first, 200, `LIST ${base}?limit=3`);
      expect(first.body.items.map((o: any) => o.metadata.name)).toEqual(["c0", "c1", "c2"]);
      expect(first.body.metadata.remainingItemCount).toBe(5); // c3 … c6 and kube-root-ca.crt
      expect(typeof first.body.metadata.continue).toBe("string");
      const rv = first.body.metadata.resourceVersion;
      // Writes between pages do not show: the pages are read at the first page's revision.
      expectCode(await s.call("POST", base, { metadata: { name: "c3a" } }), 201, "POST c3a between pages");
      expectCode(await s.call("DELETE", `${base}/c5`), 200, "DELETE c5 between pages");
      const second = await s.call("GET", `${base}?limit=3&continue=${encodeURIComponent(first.body.metadata.continue)}`);
      expectCode(second, 200, "LIST page 2");
      expect(second.body.items.map((o: any) => o.metadata.name)).toEqual(["c3", "c4", "c5"]);
      expect(second.body.metadata.resourceVersion).toBe(rv);
      expect(second.body.metadata.remainingItemCount).toBe(2);
      const third = await s.call("GET", `${base}?limit=3&continue=${encodeURIComponent(second.body.metadata.continue)}`);
      expectCode(third, 200, "LIST page 3");
      expect(third.body.items.map((o: any) => o.metadata.name)).toEqual(["c6", NAMESPACE_BUILTINS.configmaps]);
      expect(third.body.metadata.continue).toBeUndefined();
      expect(third.body.metadata.remainingItemCount).toBeUndefined();
      // a fresh list sees the writes
      const now = await s.call("GET", base);
      expect(mine(now.body)).toEqual(["c0", "c1", "c2", "c3", "c3a", "c4", "c6"]);
      const badToken = await s.call("GET", `${base}?limit=3&continue=garbage`);
      expectStatus(badToken, 400, "BadRequest", "LIST with a malformed continue token");
    });

    test("watch: ADDED, MODIFIED, DELETED in order, with the writes' resourceVersions", async () => {
      const base = "/api/v1/namespaces/watch/configmaps";
      const l = await s.call("GET", base);
      const w = await openWatch(s, `${base}?watch=true&resourceVersion=${l.body.metadata.resourceVersion}&timeoutSeconds=10`);
      try {
        const c = await s.call("POST", base, { metadata: { name: "w1", labels: { x: "1" } }, data: { a: "1" } });
        expectCode(c, 201, "POST w1");
        const u = await s.call("PUT", `${base}/w1`, { ...c.body, data: { a: "2" } });
        expectCode(u, 200, "PUT w1");
        const d = await s.call("DELETE", `${base}/w1`);
        expectCode(d, 200, "DELETE w1");
        const evs = await w.take(3);
        expect(evs.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
        expect(evs.map((e) => e.object.metadata.name)).toEqual(["w1", "w1", "w1"]);
        expect(evs[0].object.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
        expect(evs[1].object.metadata.resourceVersion).toBe(u.body.metadata.resourceVersion);
        expect(evs[1].object.data).toEqual({ a: "2" });
        expect(evs[2].object.data).toEqual({ a: "2" }); // DELETED carries the object as it last was
        expect(Number(evs[2].object.metadata.resourceVersion)).toBeGreaterThan(Number(u.body.metadata.resourceVersion));
        expect(evs.every((e) => e.object.kind === "ConfigMap" && e.object.apiVersion === "v1")).toBe(true);
      } finally {
        w.close();
      }
      // A watch with a label selector from "now" sees only its selection; an object leaving it is DELETED.
      const sw = await openWatch(s, `${base}?watch=true&labelSelector=x%3D1&timeoutSeconds=10`);
      try {
        await Bun.sleep(100);
        expectCode(await s.call("POST", base, { metadata: { name: "other", labels: { x: "2" } } }), 201, "POST other");
        const c = await s.call("POST", base, { metadata: { name: "w2", labels: { x: "1" } } });
        expectCode(c, 201, "POST w2");
        const p = await s.call("PATCH", `${base}/w2`, { metadata: { labels: { x: "9" } } }, { "Content-Type": "application/merge-patch+json" });
        expectCode(p, 200, "PATCH w2 out of the selection");
        const evs = await sw.take(2);
        expect(evs.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED w2", "DELETED w2"]);
      } finally {
        sw.close();
      }
    });

    test("deleting a namespace empties it (Terminating), then removes it", async () => {
      await createNamespace(s, "doomed");
      const posts: [string, unknown][] = [
        ["/api/v1/namespaces/doomed/configmaps", { metadata: { name: "cm1" } }],
        ["/api/v1/namespaces/doomed/secrets", { metadata: { name: "s1" }, data: { k: Buffer.from("v").toString("base64") } }],
        ["/api/v1/namespaces/doomed/pods", { metadata: { name: "p1" }, spec: { containers: [container] } }],
        ["/apis/apps/v1/namespaces/doomed/deployments", { metadata: { name: "d1" }, spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [container] } } } }],
      ];
      for (const [path, body] of posts) expectCode(await s.call("POST", path, body), 201, `POST ${path}`);
      const d = await s.call("DELETE", "/api/v1/namespaces/doomed");
      expectCode(d, 200, "DELETE namespace doomed");
      expect(d.body.status.phase).toBe("Terminating");
      expect(d.body.metadata.deletionTimestamp).toBeString();
      const refused = await s.call("POST", "/api/v1/namespaces/doomed/configmaps", { metadata: { name: "late" } });
      expectStatus(refused, 403, "Forbidden", "POST into a terminating namespace");
      await until(async () => (await s.call("GET", "/api/v1/namespaces/doomed")).status === 404, "namespace doomed to be removed");
      for (const [path] of posts) {
        const l = await s.call("GET", path);
        expectCode(l, 200, `LIST ${path} after the namespace is gone`);
        expect(l.body.items).toEqual([]);
      }
    });
  });
}

let etcd: EtcdProcess | undefined;
afterAll(async () => { await etcd?.stop(); }, 30_000);

apiSlice("sqlite", () => startServer());
apiSlice("etcd", async () => {
  etcd = await startEtcd();
  return startServer([`--etcd-servers=${etcd.endpoints[0]}`]);
});

describe("etcd keys and values as upstream", () => {
  let s: TestServer;
  beforeAll(async () => {
    etcd ??= await startEtcd();
    s = await startServer([`--etcd-servers=${etcd.endpoints[0]}`]);
    await createNamespace(s, "layout");
  }, 30_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  /** key → value under prefix, through etcdctl when installed, else etcd's JSON gateway. */
  async function etcdGet(prefix: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const ctl = etcdctlBinary();
    if (ctl) {
      const p = Bun.spawn([ctl, `--endpoints=${etcd!.endpoints[0]}`, "get", "--prefix", prefix], { env: { ...process.env, ETCDCTL_API: "3" }, stdout: "pipe", stderr: "pipe" });
      const [text, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      if (code !== 0) throw new Error(`etcdctl get --prefix ${prefix}: exit ${code}: ${err}`);
      // etcdctl prints key and value on alternate lines (values here are one-line JSON).
      const ls = text.split("\n");
      for (let i = 0; i + 1 < ls.length; i += 2) if (ls[i]) out.set(ls[i], ls[i + 1]);
      return out;
    }
    const b64 = (x: string) => Buffer.from(x).toString("base64");
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const r = await fetch(`${etcd!.endpoints[0]}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: b64(prefix), range_end: b64(end) }) });
    const body = (await r.json()) as { kvs?: { key: string; value: string }[] };
    for (const kv of body.kvs ?? []) out.set(Buffer.from(kv.key, "base64").toString(), Buffer.from(kv.value, "base64").toString());
    return out;
  }

  test("etcdctl get --prefix /registry/configmaps/ shows /registry/configmaps/<ns>/<name> with the object's JSON", async () => {
    const c = await s.call("POST", "/api/v1/namespaces/layout/configmaps", { metadata: { name: "shown", labels: { a: "b" } }, data: { k: "v" } });
    expectCode(c, 201, "POST configmap shown");
    const kvs = await etcdGet("/registry/configmaps/");
    const v = kvs.get("/registry/configmaps/layout/shown");
    if (v === undefined) throw new Error(`no key /registry/configmaps/layout/shown; keys: ${[...kvs.keys()].join(", ")}`);
    const stored = JSON.parse(v);
    const { resourceVersion, ...meta } = c.body.metadata;
    expect(resourceVersion).toBeString();
    // Upstream stores no resourceVersion (it is the key's mod revision); everything else is the object.
    expect(stored).toEqual({ ...c.body, metadata: meta });
  });

  test("other types under upstream's resource names", async () => {
    const t = { metadata: { labels: { a: "b" } }, spec: { containers: [container] } };
    const posts: [string, string, unknown][] = [
      ["/apis/apps/v1/namespaces/layout/deployments", "/registry/deployments/layout/d", { metadata: { name: "d" }, spec: { selector: { matchLabels: { a: "b" } }, template: t } }],
      ["/api/v1/namespaces/layout/services", "/registry/services/specs/layout/svc", { metadata: { name: "svc" }, spec: { ports: [{ port: 80 }] } }],
      ["/api/v1/nodes", "/registry/minions/n1", { metadata: { name: "n1" } }],
      ["/api/v1/namespaces/layout/pods", "/registry/pods/layout/p", { metadata: { name: "p" }, spec: { containers: [container] } }],
    ];
    for (const [path, key, body] of posts) {
      expectCode(await s.call("POST", path, body), 201, `POST ${path}`);
      const kvs = await etcdGet(key);
      expect([...kvs.keys()]).toContain(key);
      expect(JSON.parse(kvs.get(key)!).metadata.name).toBe(key.split("/").pop());
    }
    expect([...(await etcdGet("/registry/namespaces/layout")).keys()]).toEqual(["/registry/namespaces/layout"]);
  });
});
