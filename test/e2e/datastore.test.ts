// Issue 6 item 6: `kite datastore export|import` moves a store with every built-in kind from SQLite to
// etcd and back; every object comes back the same (uid, spec, labels, status, finalizers… — all but the
// resourceVersion), through the API of a server started on the new store. A non-empty store is refused.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import type { ResourceDef } from "../../pkg/registry/types.ts";
import { createNamespace, expectCode, minimalBody, pathFor, typeLabel } from "../api/fixtures.ts";
import { type EtcdProcess, startEtcd } from "../helpers/etcd.ts";
import { KITE, type TestServer, startServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";

setDefaultTimeout(60_000);

const NS = "moving";
const root = tempDir("kite-datastore-");
const dir = (name: string) => join(root, name);
let etcd: EtcdProcess | undefined;
let servers: TestServer[] = [];

/** Runs `kite ARGS`; stdin from a string when given. */
async function kite(args: string[], stdin?: string) {
  const p = Bun.spawn([...KITE, ...args], { stdin: stdin !== undefined ? new Blob([stdin]) : "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err, what: `kite ${args.join(" ")}` };
}

function expectExit(r: { code: number; err: string; what: string }, code: number) {
  if (r.code !== code) throw new Error(`${r.what}: expected exit ${code}, got ${r.code}; stderr:\n${r.err}`);
}

async function serve(args: string[], dataDir: string) {
  const s = await startServer(args, dataDir);
  servers.push(s);
  return s;
}
async function stop(s: TestServer) {
  await s.stop();
  servers = servers.filter((x) => x !== s);
}

const objKey = (d: ResourceDef, o: any) => `${typeLabel(d)} ${o.metadata.namespace ?? ""}/${o.metadata.name}`;
const withoutRV = (o: any) => {
  const c = structuredClone(o);
  delete c.metadata.resourceVersion;
  return c;
};

/**
 * Objects the server keeps itself (builtin-objects.test.ts) and the lease that says which server keeps
 * them, by list key and by store key: a server on a moved store rewrites them for its own CA and port,
 * so they are compared by identity only.
 */
const KEPT = /^(v1 configmaps [^ ]*\/kube-root-ca\.crt|v1 services default\/kubernetes|v1 endpoints default\/kubernetes|coordination\.k8s\.io\/v1 leases kube-system\/kite-bootstrap)$/;
const KEPT_KEY = /^\/registry\/(configmaps\/[^/]+\/kube-root-ca\.crt|services\/specs\/default\/kubernetes|services\/endpoints\/default\/kubernetes|leases\/kube-system\/kite-bootstrap)$/;
/** Each running server's own record of its address (the `kubernetes` Endpoints' lease): per process, not compared. */
const SERVER_RECORD = /leases[ /]kube-system\/kite-apiserver-/;
/** An export's lines with the kept objects reduced to their keys. */
const comparable = (text: string) => lines(text).filter((l) => !SERVER_RECORD.test(JSON.parse(l).key)).map((l) => { const k = JSON.parse(l).key; return KEPT_KEY.test(k) ? k : l; });

/** Every stored object the server shows, through every built-in type's list (all namespaces), by type and name. */
async function snapshot(s: TestServer): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  for (const d of BUILTIN.filter((x) => !x.computed)) {
    const r = await s.call("GET", pathFor(d, ""));
    expectCode(r, 200, `LIST ${typeLabel(d)}`);
    for (const o of r.body.items) if (!SERVER_RECORD.test(objKey(d, o))) out.set(objKey(d, o), withoutRV(o));
  }
  return out;
}

/** The objects of `want` are all in `got` and equal (resourceVersion aside); nothing else is in `got`. */
function expectSameObjects(want: Map<string, any>, got: Map<string, any>, where: string) {
  const problems: string[] = [];
  for (const [k, o] of want) {
    const g = got.get(k);
    if (!g) problems.push(`${k}: missing`);
    else if (KEPT.test(k) ? g.metadata.uid !== o.metadata.uid : JSON.stringify(g) !== JSON.stringify(o)) problems.push(`${k}: differs\n  want ${JSON.stringify(o)}\n  got  ${JSON.stringify(g)}`);
  }
  for (const k of got.keys()) if (!want.has(k)) problems.push(`${k}: not in the source`);
  if (problems.length) throw new Error(`${where}: ${problems.length} objects differ:\n${problems.slice(0, 15).join("\n")}`);
}

const lines = (text: string) => text.split("\n").filter(Boolean);

/** What the source server held, filled by beforeAll. */
let source: Map<string, any>;
/** The objects this test created (one per built-in type), as the source server returned them. */
const created = new Map<string, { d: ResourceDef; obj: any }>();
const exportFile = dir("sqlite.jsonl");
const liveFile = dir("sqlite-live.jsonl");

beforeAll(async () => {
  const s = await serve([], dir("sqlite-a"));
  await createNamespace(s, NS);
  for (const d of BUILTIN.filter((x) => !x.computed)) {
    const name = `mv-${d.group.split(".")[0] || "core"}-${d.singular.replace(/[^a-z0-9]/g, "")}`;
    const body = minimalBody(d, name, NS);
    body.metadata.labels = { ...(body.metadata.labels ?? {}), moved: "yes", kind: d.kind.toLowerCase() };
    body.metadata.annotations = { "example.com/note": `a ${d.kind} that moves` };
    const c = await s.call("POST", pathFor(d, NS), body);
    expectCode(c, 201, `POST ${typeLabel(d)}`);
    created.set(typeLabel(d), { d, obj: c.body });
  }
  // A few more shapes: a status written through /status, an object being deleted (held by a finalizer),
  // a generated name, and a value with every kind of character.
  const dep = created.get("apps/v1 deployments")!.obj;
  const st = await s.call("PUT", `/apis/apps/v1/namespaces/${NS}/deployments/${dep.metadata.name}/status`, { ...dep, status: { replicas: 1, readyReplicas: 1, observedGeneration: 1 } });
  expectCode(st, 200, "PUT deployment status");
  const held = await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "held", finalizers: ["example.com/hold"] }, data: { a: "b" } });
  expectCode(held, 201, "POST configmap held");
  expectCode(await s.call("DELETE", `/api/v1/namespaces/${NS}/configmaps/held`), 200, "DELETE configmap held");
  expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { generateName: "gen-" } }), 201, "POST configmap generateName");
  const odd = { text: "line\nbreak\ttab \"quote\" \\ back ünïcødé 🚀 \u0000 \u2028", big: "x".repeat(100_000) };
  expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "odd" }, data: odd }), 201, "POST configmap odd");
  source = await snapshot(s);
  // An export while the server runs (a reader beside it) is the same snapshot as one after it stops.
  const live = await kite(["datastore", "export", `--data-dir=${dir("sqlite-a")}`, "-o", liveFile]);
  expectExit(live, 0);
  await stop(s);
}, 60_000);

afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  await etcd?.stop();
  rmSync(root, { recursive: true, force: true });
}, 30_000);

describe("kite datastore", () => {
  let etcdExport = "";
  /** sqlite-b exported after a server ran on it (which rewrote the kept objects for its own CA and port). */
  let sqliteExport = "";

  test("export from SQLite: one JSON object per line, progress and a summary on stderr", async () => {
    const r = await kite(["datastore", "export", `--data-dir=${dir("sqlite-a")}`, "-o", exportFile, "--progress-every=10"]);
    expectExit(r, 0);
    const ls = lines(readFileSync(exportFile, "utf8"));
    // every object the API showed (events appear through two groups but are stored once)
    const stored = new Set([...source.keys()].map((k) => k.replace(/^events\.k8s\.io\/v1 events /, "v1 events ")));
    expect(ls.length).toBe(stored.size);
    const keys = ls.map((l) => JSON.parse(l).key as string);
    expect(keys).toEqual([...keys].sort());
    for (const l of ls) {
      const e = JSON.parse(l);
      expect(Object.keys(e)).toEqual(["key", "value"]);
      expect(e.key.startsWith("/registry/")).toBe(true);
      expect(typeof e.value.metadata.uid).toBe("string");
      expect(e.value.metadata.resourceVersion).toBeUndefined();
    }
    expect(keys).toContain(`/registry/deployments/${NS}/mv-apps-deployment`);
    expect(keys).toContain(`/registry/services/specs/${NS}/mv-core-service`);
    expect(keys).toContain(`/registry/events/${NS}/mv-events-event`);
    expect(keys).toContain(`/registry/namespaces/${NS}`);
    expect(r.err).toContain("exported 10 objects");
    expect(r.err).toContain(`exported ${ls.length} objects`);
    expect(r.out).toBe("");
    // (the lease may have been renewed between the two)
    expect(comparable(readFileSync(liveFile, "utf8"))).toEqual(comparable(readFileSync(exportFile, "utf8")));
  });

  test("import into a fresh etcd; a server on it shows every object as it was", async () => {
    etcd = await startEtcd();
    const r = await kite(["datastore", "import", `--etcd-servers=${etcd.endpoints[0]}`, "-f", exportFile, "--progress-every=10"]);
    expectExit(r, 0);
    const n = lines(readFileSync(exportFile, "utf8")).length;
    expect(r.err).toContain("imported 10/");
    expect(r.err).toContain(`imported ${n} objects`);

    const s = await serve([`--etcd-servers=${etcd.endpoints[0]}`], dir("etcd-pki"));
    const got = await snapshot(s);
    expectSameObjects(source, got, "server on etcd after the import");
    // Each object created above, read by name: same uid, spec, labels.
    for (const { d, obj } of created.values()) {
      const g = await s.call("GET", pathFor(d, NS, obj.metadata.name));
      expectCode(g, 200, `GET ${typeLabel(d)}/${obj.metadata.name} on etcd`);
      expect(g.body.metadata.uid).toBe(obj.metadata.uid);
      expect(g.body.metadata.labels).toEqual(obj.metadata.labels);
      expect(g.body.metadata.creationTimestamp).toBe(obj.metadata.creationTimestamp);
      expect(g.body.spec).toEqual(obj.spec);
    }
    const held = await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/held`);
    expect(held.body.metadata.deletionTimestamp).toBeString();
    const dep = await s.call("GET", `/apis/apps/v1/namespaces/${NS}/deployments/mv-apps-deployment`);
    expect(dep.body.status).toEqual({ replicas: 1, readyReplicas: 1, observedGeneration: 1 });
    await stop(s);
  });

  test("export from etcd (stdout) is the same file, byte for byte", async () => {
    const r = await kite(["datastore", "export", `--etcd-servers=${etcd!.endpoints.join(",")}`]);
    expectExit(r, 0);
    etcdExport = r.out;
    const a = comparable(readFileSync(exportFile, "utf8")), b = comparable(r.out);
    const diff = a.filter((l, i) => b[i] !== l);
    if (diff.length || a.length !== b.length) {
      throw new Error(`etcd export differs from the SQLite export (${a.length} vs ${b.length} lines); first differing source lines:\n${diff.slice(0, 3).join("\n").slice(0, 2000)}`);
    }
    expect(r.err).toMatch(/exported \d+ objects .* from etcd http/);
  });

  test("import from stdin into a new SQLite data dir; a server on it shows every object as it was", async () => {
    const r = await kite(["datastore", "import", `--data-dir=${dir("sqlite-b")}`], etcdExport);
    expectExit(r, 0);
    const s = await serve([], dir("sqlite-b"));
    expectSameObjects(source, await snapshot(s), "server on the new SQLite store");
    await stop(s);
    const again = await kite(["datastore", "export", `--data-dir=${dir("sqlite-b")}`]);
    expectExit(again, 0);
    expect(comparable(again.out)).toEqual(comparable(etcdExport));
    sqliteExport = again.out;
  });

  test("import into a non-empty store is refused (etcd and SQLite), and writes nothing", async () => {
    const e = await kite(["datastore", "import", `--etcd-servers=${etcd!.endpoints[0]}`, "-f", exportFile]);
    expectExit(e, 1);
    expect(e.err).toMatch(/^Error: refusing to import into a store that is not empty: etcd http:\/\/127\.0\.0\.1:\d+ holds \d+ objects under \/registry\//m);
    const q = await kite(["datastore", "import", `--data-dir=${dir("sqlite-b")}`, "-f", exportFile]);
    expectExit(q, 1);
    expect(q.err).toContain("refusing to import into a store that is not empty");
    const after = await kite(["datastore", "export", `--data-dir=${dir("sqlite-b")}`]);
    expect(after.out).toBe(sqliteExport);
  });

  test("a malformed file is refused before anything is written", async () => {
    const bad = dir("bad.jsonl");
    const ls = lines(readFileSync(exportFile, "utf8"));
    writeFileSync(bad, [...ls.slice(0, 5), "{not json", ...ls.slice(5)].join("\n"));
    const r = await kite(["datastore", "import", `--data-dir=${dir("sqlite-c")}`, "-f", bad]);
    expectExit(r, 1);
    expect(r.err).toContain(`line 6 of ${bad}: not JSON`);
    writeFileSync(bad, [...ls, ls[0]].join("\n"));
    const dup = await kite(["datastore", "import", `--data-dir=${dir("sqlite-c")}`, "-f", bad]);
    expectExit(dup, 1);
    expect(dup.err).toContain("appears twice");
    writeFileSync(bad, JSON.stringify({ key: "/elsewhere/x", value: {} }));
    const out = await kite(["datastore", "import", `--data-dir=${dir("sqlite-c")}`, "-f", bad]);
    expectExit(out, 1);
    expect(out.err).toContain("is not under the prefix /registry/");
    const empty = await kite(["datastore", "export", `--data-dir=${dir("sqlite-c")}`]);
    expectExit(empty, 0);
    expect(empty.out).toBe("");
    expect(empty.err).toContain("exported 0 objects");
  });

  test("values that are not canonical JSON (another writer's spelling, or not JSON) come back byte for byte", async () => {
    const file = dir("raw.jsonl");
    const values = ['{ "kind": "ConfigMap", "n": 1.0, "big": 12345678901234567890 }', "k8s\x00binary\u00ff", '{"kind":"ConfigMap","data":{"a":"b"}}'];
    writeFileSync(file, values.map((v, i) => JSON.stringify({ key: `/registry/configmaps/raw/v${i}`, raw: v })).join("\n") + "\n");
    expectExit(await kite(["datastore", "import", `--data-dir=${dir("sqlite-raw")}`, "-f", file]), 0);
    const r = await kite(["datastore", "export", `--data-dir=${dir("sqlite-raw")}`]);
    expectExit(r, 0);
    const back = lines(r.out).map((l) => JSON.parse(l));
    expect(back[0]).toEqual({ key: "/registry/configmaps/raw/v0", raw: values[0] });
    expect(back[1]).toEqual({ key: "/registry/configmaps/raw/v1", raw: values[1] });
    // a canonical value is written as the object itself
    expect(back[2]).toEqual({ key: "/registry/configmaps/raw/v2", value: JSON.parse(values[2]) });
  });

  test("the moved cluster takes writes: its revisions go on from the new store's", async () => {
    const s = await serve([`--etcd-servers=${etcd!.endpoints[0]}`], dir("etcd-pki"));
    const cur = await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/odd`);
    const u = await s.call("PUT", `/api/v1/namespaces/${NS}/configmaps/odd`, { ...cur.body, data: { changed: "yes" } });
    expectCode(u, 200, "PUT configmap odd on etcd");
    expect(Number(u.body.metadata.resourceVersion)).toBeGreaterThan(Number(cur.body.metadata.resourceVersion));
    const stale = await s.call("PUT", `/api/v1/namespaces/${NS}/configmaps/odd`, { ...cur.body, data: { changed: "stale" } });
    expectCode(stale, 409, "PUT configmap odd with the pre-update resourceVersion");
    const c = await s.call("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, minimalBody(BUILTIN.find((d) => d.kind === "Deployment")!, "after-move", NS));
    expectCode(c, 201, "POST deployment after the move");
    await stop(s);
  });

  test("usage errors exit 2; a missing store exits 1", async () => {
    expectExit(await kite(["datastore", "export", "--no-such-flag"]), 2);
    expectExit(await kite(["datastore", "import", "--no-such-flag=1"]), 2);
    const both = await kite(["datastore", "export", `--data-dir=${dir("x")}`, "--etcd-servers=http://127.0.0.1:1"]);
    expectExit(both, 2);
    expect(both.err).toContain("not both");
    const missing = await kite(["datastore", "export", `--data-dir=${dir("nothing-here")}`]);
    expectExit(missing, 1);
    expect(missing.err).toContain("no store at");
    const help = await kite(["datastore", "export", "--help"]);
    expectExit(help, 0);
    expect(help.out).toContain('{"key":');
  });
});
