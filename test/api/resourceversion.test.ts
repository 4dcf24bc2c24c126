// Spec §4.6, cell by cell: get, list and watch by resourceVersion, resourceVersionMatch and paging.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { APISERVER_ALONE, startServer, type TestServer } from "../helpers/server.ts";
import { NAMESPACE_BUILTINS, createNamespace } from "./fixtures.ts";

let s: TestServer;
const NS = "rv";
const base = `/api/v1/namespaces/${NS}/configmaps`;
let rvOld = 0; // revision after a0..a2 exist, before b is created and a0 is changed
let rvNow = 0;

/** This suite's configmaps in a list (the namespace's kube-root-ca.crt, which sorts last, left out). */
const names = (list: any) => list.items.map((i: any) => i.metadata.name).filter((n: string) => n !== NAMESPACE_BUILTINS.configmaps);
const mk = (name: string) => s.call("POST", base, { metadata: { name }, data: { v: "1" } });

beforeAll(async () => {
  s = await startServer();
  await createNamespace(s, NS);
  for (const n of ["a0", "a1", "a2"]) await mk(n);
  rvOld = Number((await s.call("GET", base)).body.metadata.resourceVersion);
  await mk("b");
  await s.call("PATCH", `${base}/a0`, { data: { v: "2" } }, { "content-type": "application/merge-patch+json" });
  rvNow = Number((await s.call("GET", base)).body.metadata.resourceVersion);
});
afterAll(() => s.stop());

describe("get", () => {
  test("unset: most recent", async () => {
    const r = await s.call("GET", `${base}/a0`);
    expect(r.status).toBe(200);
    expect(r.body.data.v).toBe("2");
  });
  test("0: any version", async () => {
    const r = await s.call("GET", `${base}/a0?resourceVersion=0`);
    expect(r.status).toBe(200);
    expect(r.body.metadata.name).toBe("a0");
  });
  test("other: not older than", async () => {
    const r = await s.call("GET", `${base}/a0?resourceVersion=${rvOld}`);
    expect(r.status).toBe(200);
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThan(rvOld);
  });
  test("too new: 504 with Retry-After and 'Too large resource version'", async () => {
    const r = await s.call("GET", `${base}/a0?resourceVersion=${rvNow + 1000}`);
    expect(r.status).toBe(504);
    expect(r.headers.get("retry-after")).toBe("1");
    expect(r.body.message).toContain("Too large resource version");
  });
  test("malformed: 400", async () => {
    expect((await s.call("GET", `${base}/a0?resourceVersion=abc`)).status).toBe(400);
  });
});

describe("list", () => {
  // [resourceVersionMatch, limit, resourceVersion] → expectation.
  type Want = { status: number; rv?: "old" | "now" | "notOlder"; items?: string[] };
  const cells: [string, string, string, Want][] = [
    ["", "", "", { status: 200, rv: "now", items: ["a0", "a1", "a2", "b"] }], // Most Recent
    ["", "", "0", { status: 200, items: ["a0", "a1", "a2", "b"] }], // Any
    ["", "", "OLD", { status: 200, rv: "notOlder" }], // Not older than
    ["", "2", "", { status: 200, rv: "now", items: ["a0", "a1"] }], // Most Recent, first chunk
    ["", "2", "0", { status: 200 }], // Any
    ["", "2", "OLD", { status: 200, rv: "old", items: ["a0", "a1"] }], // Exact
    ["Exact", "", "", { status: 400 }], // Invalid
    ["Exact", "", "0", { status: 400 }], // Invalid
    ["Exact", "", "OLD", { status: 200, rv: "old", items: ["a0", "a1", "a2"] }], // Exact
    ["Exact", "2", "OLD", { status: 200, rv: "old", items: ["a0", "a1"] }], // Exact
    ["NotOlderThan", "", "", { status: 400 }], // Invalid
    ["NotOlderThan", "", "0", { status: 200 }], // Any
    ["NotOlderThan", "", "OLD", { status: 200, rv: "notOlder" }], // Not older than
    ["NotOlderThan", "2", "OLD", { status: 200, rv: "notOlder" }],
  ];
  for (const [match, limit, rv, want] of cells) {
    test(`match=${match || "unset"} limit=${limit || "unset"} rv=${rv || "unset"} → ${want.status}`, async () => {
      const q = new URLSearchParams();
      if (match) q.set("resourceVersionMatch", match);
      if (limit) q.set("limit", limit);
      if (rv) q.set("resourceVersion", rv === "OLD" ? String(rvOld) : rv);
      const r = await s.call("GET", `${base}?${q}`);
      expect(r.status).toBe(want.status);
      if (want.status !== 200) {
        expect(r.body.kind).toBe("Status");
        return;
      }
      const got = Number(r.body.metadata.resourceVersion);
      if (want.rv === "old") expect(got).toBe(rvOld);
      // the most recent revision: rvNow or later (the server's own leases are renewed every few seconds,
      // and on etcd the revision is the whole store's)
      if (want.rv === "now") expect(got).toBeGreaterThanOrEqual(rvNow);
      if (want.rv === "notOlder") expect(got).toBeGreaterThanOrEqual(rvOld);
      if (want.items) expect(names(r.body)).toEqual(want.items);
      // An Exact read shows the objects as they were at that revision.
      if (want.rv === "old") expect(r.body.items[0].metadata.resourceVersion).not.toBe(String(rvNow));
    });
  }

  test("continue token: later chunks are read at the first chunk's revision", async () => {
    const p1 = await s.call("GET", `${base}?limit=2`);
    const tok = p1.body.metadata.continue;
    expect(tok).toBeTruthy();
    expect(p1.body.metadata.remainingItemCount).toBe(3); // a2, b and kube-root-ca.crt
    await mk("a15"); // sorts between a1 and a2: must not show up in the snapshot
    const p2 = await s.call("GET", `${base}?limit=3&continue=${tok}`);
    expect(p2.status).toBe(200);
    expect(names(p2.body)).toEqual(["a2", "b"]);
    expect(p2.body.metadata.resourceVersion).toBe(p1.body.metadata.resourceVersion);
    expect(p2.body.metadata.continue ?? "").toBe("");
    expect(p2.body.metadata.remainingItemCount).toBeUndefined();
    // rv=0 with a continue token is treated as the token's revision; another rv is invalid.
    expect((await s.call("GET", `${base}?limit=2&continue=${tok}&resourceVersion=0`)).status).toBe(200);
    expect((await s.call("GET", `${base}?limit=2&continue=${tok}&resourceVersion=${rvOld}`)).status).toBe(400);
    await s.call("DELETE", `${base}/a15`);
  });

  test("a forged token or one from another collection is a 400", async () => {
    const p1 = await s.call("GET", `${base}?limit=1`);
    expect((await s.call("GET", `/api/v1/namespaces/default/configmaps?limit=1&continue=${p1.body.metadata.continue}`)).status).toBe(400);
    expect((await s.call("GET", `${base}?limit=1&continue=not-a-token`)).status).toBe(400);
    const forged = Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: 1, start: "../../secrets/" })).toString("base64url");
    expect((await s.call("GET", `${base}?limit=1&continue=${forged}`)).status).toBe(400);
  });

  test("selectors with limit still fill pages and omit remainingItemCount", async () => {
    for (let i = 0; i < 12; i++) await s.call("POST", base, { metadata: { name: `sel-${String(i).padStart(2, "0")}`, labels: { odd: String(i % 2 === 1) } } });
    const seen: string[] = [];
    let tok = "";
    for (let page = 0; page < 10; page++) {
      const r = await s.call("GET", `${base}?limit=2&labelSelector=odd%3Dtrue${tok ? `&continue=${tok}` : ""}`);
      expect(r.body.metadata.remainingItemCount).toBeUndefined();
      if (r.body.metadata.continue) expect(r.body.items.length).toBe(2);
      seen.push(...names(r.body));
      tok = r.body.metadata.continue;
      if (!tok) break;
    }
    expect(seen).toEqual(["sel-01", "sel-03", "sel-05", "sel-07", "sel-09", "sel-11"]);
  });
});

describe("watch", () => {
  /** Reads events of a watch until `count` arrived or the stream ends. */
  async function events(query: string, count: number, during?: () => Promise<unknown>) {
    const res = await s.req(`${base}?watch=1&timeoutSeconds=3&${query}`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const out: any[] = [];
    let buf = "";
    const act = during ? Bun.sleep(100).then(during) : Promise.resolve();
    while (out.length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += new TextDecoder().decode(value);
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).trim();
        if (line) out.push(JSON.parse(line));
        buf = buf.slice(i + 1);
      }
    }
    await act;
    reader.cancel();
    return out;
  }

  test("unset: synthetic ADDED for current state, then changes", async () => {
    await s.call("POST", base, { metadata: { name: "w-before", labels: { w: "1" } } });
    const ev = await events("labelSelector=w%3D1", 2, () => s.call("POST", base, { metadata: { name: "w-unset", labels: { w: "1" } } }));
    expect(ev.map((e) => [e.type, e.object.metadata.name])).toEqual([["ADDED", "w-before"], ["ADDED", "w-unset"]]);
  });

  test("0: the current state, then changes", async () => {
    const ev = await events("resourceVersion=0&labelSelector=w%3D1", 3, () => s.call("PATCH", `${base}/w-unset`, { data: { x: "y" } }, { "content-type": "application/merge-patch+json" }));
    expect(ev.map((e) => e.type)).toEqual(["ADDED", "ADDED", "MODIFIED"].slice(0, ev.length));
    expect(ev.length).toBe(3);
  });

  test("other: only changes after that version, no synthetic ADDED", async () => {
    const ev = await events(`resourceVersion=${rvOld}`, 2);
    expect(ev.map((e) => [e.type, e.object.metadata.name]).slice(0, 2)).toEqual([["ADDED", "b"], ["MODIFIED", "a0"]]);
    for (const e of ev) expect(Number(e.object.metadata.resourceVersion)).toBeGreaterThan(rvOld);
  });

  test("legacy /watch/ paths, for a collection and for one object", async () => {
    for (const [path, want] of [[`/api/v1/watch/namespaces/${NS}/configmaps?timeoutSeconds=1&labelSelector=w%3D1`, ["w-before", "w-unset"]], [`/api/v1/watch/namespaces/${NS}/configmaps/a1?timeoutSeconds=1`, ["a1"]]] as const) {
      const res = await s.req(path);
      expect(res.status).toBe(200);
      const ev = (await res.text()).split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
      expect(ev.map((e) => e.type)).toEqual(want.map(() => "ADDED"));
      expect(ev.map((e) => e.object.metadata.name)).toEqual([...want]);
    }
  });

  test("bookmarks carry only the resourceVersion and the kind", async () => {
    const res = await s.req(`${base}?watch=1&timeoutSeconds=1&allowWatchBookmarks=true&resourceVersion=${rvNow}`);
    const text = await res.text();
    const last = JSON.parse(text.trim().split("\n").at(-1)!);
    expect(last.type).toBe("BOOKMARK");
    expect(last.object.kind).toBe("ConfigMap");
    expect(last.object.apiVersion).toBe("v1");
    expect(Object.keys(last.object.metadata)).toEqual(["resourceVersion"]);
  });

  test("the closing bookmark carries the collection's progress, even when nothing matched", async () => {
    const moved = Number((await s.call("POST", `/api/v1/namespaces/default/configmaps`, { metadata: { generateName: "bm-" } })).body.metadata.resourceVersion);
    const res = await s.req(`${base}?watch=1&timeoutSeconds=1&allowWatchBookmarks=true&resourceVersion=${rvNow}&labelSelector=none%3Dnone`);
    const last = JSON.parse((await res.text()).trim().split("\n").at(-1)!);
    expect(last.type).toBe("BOOKMARK");
    expect(Number(last.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(moved);
  });
});

test("a compacted revision: list Exact and watch answer 410 Gone (Expired)", async () => {
  // Without the server's own garbage collector, whose informers watch every collection from the start.
  const c = await startServer(["--etcd-compaction-interval=1s"], undefined, APISERVER_ALONE);
  // PodTemplates: the server's own parts read configmaps, secrets, serviceaccounts and more (their watch
  // caches run from the start), but nothing else of its own reads pod templates.
  const ns = "/api/v1/namespaces/default/podtemplates";
  // The create's revision; nothing has read the collection yet, so the watch cache's window starts later.
  const body = { metadata: { name: "x" }, template: { spec: { containers: [{ name: "c", image: "nginx:1.21" }] } } };
  const old = (await c.call("POST", ns, body)).body.metadata.resourceVersion;
  for (let i = 0; i < 3; i++) await c.call("PATCH", `${ns}/x`, { metadata: { labels: { i: String(i) } } }, { "content-type": "application/merge-patch+json" });
  await Bun.sleep(2500);
  const l = await c.call("GET", `${ns}?resourceVersion=${old}&resourceVersionMatch=Exact`);
  expect(l.status).toBe(410);
  expect(l.body.reason).toBe("Expired");
  const w = await c.req(`${ns}?watch=1&resourceVersion=${old}&timeoutSeconds=2`);
  const ev = JSON.parse((await w.text()).trim().split("\n").filter(Boolean)[0]);
  expect(ev.type).toBe("ERROR");
  expect(ev.object.code).toBe(410);
  expect(ev.object.reason).toBe("Expired");
  await c.stop();
});
