// Issue 5: the representations the server speaks besides plain JSON, against a real `kite apiserver`:
// Table (get, list, watch; both Table groups and versions; fallbacks; 406; default columns; includeObject;
// list metadata), PartialObjectMetadata(List), YAML, gzip for large responses, and protobuf (get, list,
// watch frames, protobuf request bodies, request and response formats chosen independently).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import YAML from "yaml";
import { decodeObject, decodeWatchFrames, encodeObject, type WatchEvent } from "../../pkg/protobuf/index.ts";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { NAMESPACE_BUILTINS, apiVersionOf, createNamespace, dropEmpty, expectCode, expectStatus, minimalBody, pathFor, typeLabel } from "./fixtures.ts";

// Watches below have their own deadlines; a test timeout would kill the server for the tests after it.
setDefaultTimeout(30_000);

const NS = "repr";
const BIG_NS = "repr-big";
const ALL_NS = "repr-all";
const W = "repr-w";
/** Read-only configmaps a..e; writes (watch churn, POST tests) go to WCMS. */
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const WCMS = `/api/v1/namespaces/${W}/configmaps`;
const BIG = `/api/v1/namespaces/${BIG_NS}/configmaps`;
const NAMES = ["a", "b", "c", "d", "e"];
/** What a list of CMS holds: the suite's configmaps and the kube-root-ca.crt the server keeps in every namespace. */
const LISTED = [...NAMES, NAMESPACE_BUILTINS.configmaps].sort();
const BIG_COUNT = 40;
/** A list of BIG holds the big configmaps and kube-root-ca.crt. */
const BIG_LISTED = BIG_COUNT + 1;
const BIG_VALUE = "x".repeat(4096);
const PB_K8S = "application/vnd.kubernetes.protobuf";
const PB_PLATFORM = "application/vnd.platform.protobuf";
const PREFIX = [0x6b, 0x38, 0x73, 0x00];

/** The four Table / PartialObjectMetadata group versions the server answers. */
const META_GVS = [
  ["meta.k8s.io", "v1"], ["meta.k8s.io", "v1beta1"], ["meta.platform.io", "v1"], ["meta.platform.io", "v1beta1"],
] as const;
const table = (g: string, v: string) => `application/json;as=Table;g=${g};v=${v}`;
const pom = (g: string, v: string) => `application/json;as=PartialObjectMetadata;g=${g};v=${v}`;
const pomList = (g: string, v: string) => `application/json;as=PartialObjectMetadataList;g=${g};v=${v}`;

let s: TestServer;
type Body = NonNullable<RequestInit["body"]>;

beforeAll(async () => {
  s = await startServer();
  for (const ns of [NS, BIG_NS, ALL_NS, W]) await createNamespace(s, ns);
  for (const name of NAMES) {
    expectCode(await s.call("POST", CMS, { metadata: { name, labels: { app: "repr" } }, data: { key: name } }), 201, `POST configmap ${name}`);
  }
  await Promise.all(Array.from({ length: BIG_COUNT }, async (_, i) => {
    expectCode(await s.call("POST", BIG, { metadata: { name: `big-${i}` }, data: { v: BIG_VALUE } }), 201, `POST big-${i}`);
  }));
}, 60_000);
afterAll(async () => { await s?.stop(); }, 30_000);

// ---- helpers

interface Raw { status: number; headers: Headers; bytes: Uint8Array; text: string }

/** A request with exact headers; the body comes back as bytes (and as text for messages). */
async function raw(method: string, path: string, headers: Record<string, string> = {}, body?: Body, extra: Record<string, unknown> = {}): Promise<Raw> {
  const r = await s.req(path, { method, headers, body, ...extra } as RequestInit);
  const bytes = new Uint8Array(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, bytes, text: new TextDecoder().decode(bytes) };
}

const what = (method: string, path: string, accept?: string) => `${method} ${path}${accept ? ` (Accept: ${accept})` : ""}`;

/** Status code check that prints what was asked and what came back. */
function expectRaw(r: Raw, code: number, label: string): void {
  if (r.status !== code) throw new Error(`${label}: expected HTTP ${code}, got ${r.status}: ${r.text.slice(0, 600)}`);
}

/** JSON body of a 200 reply. */
async function getJSON(path: string, accept: string, label = what("GET", path, accept)): Promise<{ body: any; headers: Headers }> {
  const r = await raw("GET", path, { Accept: accept });
  expectRaw(r, 200, label);
  return { body: JSON.parse(r.text), headers: r.headers };
}

/** A media type split into its type and parameters, for comparing Content-Type headers. */
function media(ct: string | null): { type: string; params: Record<string, string> } {
  const [type, ...ps] = (ct ?? "").split(";").map((x) => x.trim());
  const params: Record<string, string> = {};
  for (const p of ps) {
    const i = p.indexOf("=");
    if (i > 0) params[p.slice(0, i).toLowerCase()] = p.slice(i + 1);
  }
  return { type: type.toLowerCase(), params };
}

/** Content-Type names the Table / PartialObjectMetadata form that was asked for. */
function expectAsContentType(headers: Headers, as: string, g: string, v: string, label: string): void {
  const m = media(headers.get("content-type"));
  const got = { type: m.type, as: m.params.as, g: m.params.g, v: m.params.v };
  if (JSON.stringify(got) !== JSON.stringify({ type: "application/json", as, g, v })) {
    throw new Error(`${label}: Content-Type ${JSON.stringify(headers.get("content-type"))} does not name application/json;as=${as};g=${g};v=${v}`);
  }
}

const prefixOf = (b: Uint8Array) => Array.from(b.subarray(0, 4));

/** Reads a streaming response until `done(bytes so far)` says so, or fails after `ms`. */
async function readStream(path: string, headers: Record<string, string>, done: (b: Uint8Array) => boolean, act?: () => Promise<void>, ms = 10_000) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  // The watch starts from a resourceVersion taken before `act`, so the writes may begin before the
  // response headers arrive.
  const pending = s.req(path, { headers, signal: ac.signal });
  pending.catch(() => {});
  if (act) await act();
  let r: Response;
  try { r = await pending; } catch (e) { clearTimeout(timer); throw new Error(`WATCH ${path}: no response within ${ms} ms: ${(e as Error).message}`); }
  if (r.status !== 200) { clearTimeout(timer); throw new Error(`WATCH ${path}: expected HTTP 200, got ${r.status}: ${await r.text()}`); }
  const reader = r.body!.getReader();
  let buf = new Uint8Array(0);
  try {
    while (!done(buf)) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try { chunk = await reader.read(); } catch { break; }
      if (chunk.done) break;
      const next = new Uint8Array(buf.length + chunk.value.length);
      next.set(buf);
      next.set(chunk.value, buf.length);
      buf = next;
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { headers: r.headers, bytes: buf };
}

const jsonLines = (b: Uint8Array): any[] => new TextDecoder().decode(b).split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

/** The current revision, from a list of the written namespace's configmaps. */
async function currentRV(): Promise<string> {
  return (await getJSON(WCMS, "application/json")).body.metadata.resourceVersion;
}

/** Creates, updates and deletes a configmap `name` in W (three events for a watcher of WCMS). */
async function churn(name: string, body?: (o: any) => { data: Body; type: string }): Promise<void> {
  const obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: W }, data: { step: "1" } };
  const enc = body ?? ((o: any) => ({ data: JSON.stringify(o), type: "application/json" }));
  const c = enc(obj);
  const cr = await raw("POST", WCMS, { "Content-Type": c.type, Accept: "application/json" }, c.data);
  expectRaw(cr, 201, `POST ${WCMS} ${name}`);
  const created = JSON.parse(cr.text);
  const u = enc({ ...created, data: { step: "2" } });
  expectRaw(await raw("PUT", `${WCMS}/${name}`, { "Content-Type": u.type, Accept: "application/json" }, u.data), 200, `PUT ${WCMS}/${name}`);
  expectRaw(await raw("DELETE", `${WCMS}/${name}`, { Accept: "application/json" }), 200, `DELETE ${WCMS}/${name}`);
}

// ---- Table

describe("Table", () => {
  for (const [g, v] of META_GVS) {
    test(`get as ${g}/${v}`, async () => {
      const accept = table(g, v);
      const plain = (await getJSON(`${CMS}/a`, "application/json")).body;
      const { body: t, headers } = await getJSON(`${CMS}/a`, accept);
      expectAsContentType(headers, "Table", g, v, what("GET", `${CMS}/a`, accept));
      expect(t.kind).toBe("Table");
      expect(t.apiVersion).toBe(`${g}/${v}`);
      expect(t.metadata.resourceVersion).toBe(plain.metadata.resourceVersion);
      expect(t.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Data", "Age"]);
      expect(t.columnDefinitions[0]).toMatchObject({ type: "string", format: "name" });
      expect(t.rows).toHaveLength(1);
      expect(t.rows[0].cells).toHaveLength(3);
      expect(t.rows[0].cells[0]).toBe("a");
      expect(t.rows[0].cells[1]).toBe(1);
      expect(t.rows[0].object).toEqual({ kind: "PartialObjectMetadata", apiVersion: `${g}/${v}`, metadata: plain.metadata });
    });

    test(`list as ${g}/${v}`, async () => {
      const accept = table(g, v);
      const plain = (await getJSON(CMS, "application/json")).body;
      const { body: t, headers } = await getJSON(CMS, accept);
      expectAsContentType(headers, "Table", g, v, what("GET", CMS, accept));
      expect(t.kind).toBe("Table");
      expect(t.apiVersion).toBe(`${g}/${v}`);
      expect(Number(t.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(plain.metadata.resourceVersion));
      expect(t.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Data", "Age"]);
      expect(t.rows.map((r: any) => r.cells[0]).sort()).toEqual(LISTED);
      for (const row of t.rows) {
        expect(row.cells).toHaveLength(t.columnDefinitions.length);
        expect(row.object.kind).toBe("PartialObjectMetadata");
        expect(row.object.apiVersion).toBe(`${g}/${v}`);
        expect(row.object.metadata.namespace).toBe(NS);
        expect(row.object.metadata.name).toBe(row.cells[0]);
      }
    });
  }

  for (const [g, v] of [["meta.k8s.io", "v1"], ["meta.platform.io", "v1beta1"]] as const) {
    test(`watch events as ${g}/${v}`, async () => {
      const accept = table(g, v);
      const name = `tw-${g.split(".")[1]}-${v}`;
      const rv = await currentRV();
      const path = `${WCMS}?watch=true&resourceVersion=${rv}&timeoutSeconds=20`;
      const { headers, bytes } = await readStream(path, { Accept: accept }, (b) => jsonLines(b).length >= 3, () => churn(name));
      expectAsContentType(headers, "Table", g, v, what("WATCH", path, accept));
      const events = jsonLines(bytes);
      expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
      for (const e of events) {
        const t = e.object;
        expect(t.kind).toBe("Table");
        expect(t.apiVersion).toBe(`${g}/${v}`);
        expect(t.rows).toHaveLength(1);
        expect(t.rows[0].cells[0]).toBe(name);
        expect(t.rows[0].cells).toHaveLength(3);
        expect(t.rows[0].object).toMatchObject({ kind: "PartialObjectMetadata", apiVersion: `${g}/${v}`, metadata: { name, namespace: W } });
      }
      // Each event carries the object's new resourceVersion, as a watcher resuming from it needs.
      const rvs = events.map((e) => Number(e.object.rows[0].object.metadata.resourceVersion));
      expect(rvs[0]).toBeGreaterThan(Number(rv));
      expect(rvs[1]).toBeGreaterThan(rvs[0]);
    });
  }

  // Upstream writes the status line and headers of a watch at once (and flushes); client-go's Watch() and
  // the Python client wait for them before they return, so an idle collection must not hold them back.
  for (const accept of ["application/json", table("meta.k8s.io", "v1"), PB_K8S]) {
    test(`watch response headers arrive before the first event (Accept: ${accept})`, async () => {
      const rv = await currentRV();
      // A binary stream has no filler byte to commit the headers with; the server sends a bookmark at once
      // when the client allows them, as client-go's reflectors always do.
      const binary = accept.includes("protobuf");
      const path = `${WCMS}?watch=true&resourceVersion=${rv}&timeoutSeconds=10${binary ? "&allowWatchBookmarks=true" : ""}`;
      const ac = new AbortController();
      const started = Date.now();
      const timer = setTimeout(() => ac.abort(), 3_000);
      let status = 0, ct: string | null = null;
      try {
        const r = await s.req(path, { headers: { Accept: accept }, signal: ac.signal });
        status = r.status;
        ct = r.headers.get("content-type");
      } catch { /* aborted: no headers within 3 s */ }
      clearTimeout(timer);
      ac.abort();
      if (status !== 200) {
        throw new Error(`WATCH ${path} (Accept: ${accept}) on a collection with no new events: expected the 200 status line and headers ` +
          `at once, got ${status ? `HTTP ${status}` : "nothing"} after ${Date.now() - started} ms`);
      }
      expect(media(ct).type).toBe(media(accept).type);
    });
  }

  test("kubectl's Accept (Table v1, Table v1beta1, json) gets a meta.k8s.io/v1 Table", async () => {
    const accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    const { body, headers } = await getJSON(`${CMS}?limit=500`, accept);
    expectAsContentType(headers, "Table", "meta.k8s.io", "v1", what("GET", CMS, accept));
    expect(body.kind).toBe("Table");
    expect(body.apiVersion).toBe("meta.k8s.io/v1");
  });

  describe("comma-separated fallbacks are honoured in order", () => {
    const cases: [string, string, "Table" | "PartialObjectMetadata" | "PartialObjectMetadataList" | "ConfigMap" | "ConfigMapList" | "yaml", string?][] = [
      // [path, Accept, the representation served, its apiVersion]
      [CMS, `application/vnd.example+xml,${table("meta.k8s.io", "v1")}`, "Table", "meta.k8s.io/v1"],
      [CMS, `${table("meta.k8s.io", "v9")},${table("meta.platform.io", "v1beta1")}`, "Table", "meta.platform.io/v1beta1"],
      [CMS, `${table("meta.example.com", "v1")},${table("meta.k8s.io", "v1beta1")}`, "Table", "meta.k8s.io/v1beta1"],
      [CMS, `application/json;as=Nonsense;g=meta.k8s.io;v=v1,${table("meta.platform.io", "v1")}`, "Table", "meta.platform.io/v1"],
      [CMS, `${table("meta.k8s.io", "v1")},application/json`, "Table", "meta.k8s.io/v1"],
      [CMS, `application/json,${table("meta.k8s.io", "v1")}`, "ConfigMapList", "v1"],
      [CMS, `${table("meta.k8s.io", "v2")},application/json`, "ConfigMapList", "v1"],
      [`${CMS}/a`, `${table("meta.platform.io", "v1beta1")},application/json`, "Table", "meta.platform.io/v1beta1"],
      [`${CMS}/a`, `text/html,application/json`, "ConfigMap", "v1"],
      [`${CMS}/a`, `application/xml,application/yaml,application/json`, "yaml"],
      // as=PartialObjectMetadata does not fit a list, nor PartialObjectMetadataList an object.
      [CMS, `${pom("meta.k8s.io", "v1")},application/json`, "ConfigMapList", "v1"],
      [CMS, `${pom("meta.k8s.io", "v1")},${pomList("meta.k8s.io", "v1")}`, "PartialObjectMetadataList", "meta.k8s.io/v1"],
      [`${CMS}/a`, `${pomList("meta.k8s.io", "v1")},${pom("meta.platform.io", "v1")}`, "PartialObjectMetadata", "meta.platform.io/v1"],
    ];
    for (const [path, accept, kind, apiVersion] of cases) {
      test(`GET ${path.replace(CMS, "configmaps")} Accept: ${accept}`, async () => {
        const r = await raw("GET", path, { Accept: accept });
        expectRaw(r, 200, what("GET", path, accept));
        if (kind === "yaml") {
          expect(media(r.headers.get("content-type")).type).toBe("application/yaml");
          expect(YAML.parse(r.text).kind).toBe("ConfigMap");
          return;
        }
        const body = JSON.parse(r.text);
        expect(body.kind).toBe(kind);
        expect(body.apiVersion).toBe(apiVersion);
        if (kind === "Table" || kind.startsWith("PartialObjectMetadata")) {
          const [g, v] = apiVersion!.split("/");
          expectAsContentType(r.headers, kind, g, v, what("GET", path, accept));
        } else {
          expect(r.headers.get("content-type")).toBe("application/json");
        }
      });
    }
  });

  describe("406 when nothing in Accept can be served", () => {
    const cases: [string, string, string][] = [
      ["GET", CMS, "application/xml"],
      ["GET", CMS, "text/plain, text/html"],
      ["GET", CMS, table("meta.k8s.io", "v2")],
      ["GET", CMS, `${table("meta.example.com", "v1")},${table("meta.k8s.io", "v1alpha1")}`],
      ["GET", CMS, pom("meta.k8s.io", "v1")],
      ["GET", `${CMS}/a`, pomList("meta.k8s.io", "v1")],
      ["GET", `${CMS}/a`, "application/json;as=Table"],
      ["GET", `${CMS}?watch=true&timeoutSeconds=1`, "application/xml"],
    ];
    for (const [method, path, accept] of cases) {
      test(`${method} ${path.replace(CMS, "configmaps")} Accept: ${accept}`, async () => {
        const r = await raw(method, path, { Accept: accept });
        let body: any = r.text;
        try { body = JSON.parse(r.text); } catch { /* shown as text */ }
        expectStatus({ status: r.status, body, headers: r.headers }, 406, "NotAcceptable", what(method, path, accept));
      });
    }
  });

  describe("default columns Name and Created At for types without their own", () => {
    for (const [plural, group, body] of [
      ["limitranges", "", { metadata: { name: "limits" }, spec: { limits: [{ type: "Container", max: { cpu: "1" } }] } }],
      ["roles", "rbac.authorization.k8s.io", { metadata: { name: "reader" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] }],
    ] as const) {
      test(plural, async () => {
        const base = `${group ? `/apis/${group}/v1` : "/api/v1"}/namespaces/${NS}/${plural}`;
        const c = await s.call("POST", base, body);
        expectCode(c, 201, `POST ${base}`);
        for (const path of [base, `${base}/${body.metadata.name}`]) {
          const { body: t } = await getJSON(path, table("meta.k8s.io", "v1"));
          expect(t.kind).toBe("Table");
          expect(t.columnDefinitions.map((c: any) => [c.name, c.type, c.format])).toEqual([["Name", "string", "name"], ["Created At", "date", ""]]);
          expect(t.rows).toHaveLength(1);
          expect(t.rows[0].cells).toEqual([body.metadata.name, c.body.metadata.creationTimestamp]);
        }
      });
    }
  });

  describe("includeObject", () => {
    test("default and Metadata: PartialObjectMetadata in the asked group", async () => {
      for (const q of ["", "?includeObject=Metadata"]) {
        const { body: t } = await getJSON(`${CMS}/a${q}`, table("meta.platform.io", "v1beta1"));
        expect(t.rows[0].object.kind).toBe("PartialObjectMetadata");
        expect(t.rows[0].object.apiVersion).toBe("meta.platform.io/v1beta1");
        expect(t.rows[0].object.metadata.name).toBe("a");
        expect(t.rows[0].object.data).toBeUndefined();
      }
    });

    test("None: rows without objects (get and list)", async () => {
      for (const path of [`${CMS}/a?includeObject=None`, `${CMS}?includeObject=None`]) {
        const { body: t } = await getJSON(path, table("meta.k8s.io", "v1"));
        expect(t.rows.length).toBeGreaterThan(0);
        for (const row of t.rows) expect(row.object).toBeUndefined();
      }
    });

    test("Object: the whole object (get and list)", async () => {
      const plain = (await getJSON(`${CMS}/a`, "application/json")).body;
      const { body: one } = await getJSON(`${CMS}/a?includeObject=Object`, table("meta.k8s.io", "v1"));
      expect(one.rows[0].object).toEqual(plain);
      const { body: all } = await getJSON(`${CMS}?includeObject=Object&labelSelector=app%3Drepr`, table("meta.k8s.io", "v1"));
      expect(all.rows).toHaveLength(NAMES.length);
      for (const row of all.rows) {
        expect(row.object.kind).toBe("ConfigMap");
        expect(row.object.apiVersion).toBe("v1");
        expect(row.object.data).toEqual({ key: row.cells[0] });
      }
    });

    test("Object in watch events", async () => {
      const rv = await currentRV();
      const path = `${WCMS}?watch=true&resourceVersion=${rv}&includeObject=Object&timeoutSeconds=20`;
      const { bytes } = await readStream(path, { Accept: table("meta.k8s.io", "v1") }, (b) => jsonLines(b).length >= 3, () => churn("tw-object"));
      const events = jsonLines(bytes);
      expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
      expect(events.map((e) => e.object.rows[0].object.data?.step)).toEqual(["1", "2", "2"]);
      expect(events[0].object.rows[0].object.kind).toBe("ConfigMap");
    });

    test("an unknown value is a 400", async () => {
      const r = await s.call("GET", `${CMS}?includeObject=Everything`, undefined, { Accept: table("meta.k8s.io", "v1") });
      expectStatus(r, 400, "BadRequest", "GET configmaps?includeObject=Everything as Table");
    });
  });

  test("list metadata (resourceVersion, continue, remainingItemCount) is carried over with limit", async () => {
    const plain = (await getJSON(`${CMS}?limit=2`, "application/json")).body;
    expect(plain.metadata.continue).toBeTruthy();
    const accept = table("meta.k8s.io", "v1");
    // At the plain list's revision: the server's lease renewal may move the store's between two requests.
    const { body: first } = await getJSON(`${CMS}?limit=2&resourceVersion=${plain.metadata.resourceVersion}&resourceVersionMatch=Exact`, accept);
    expect(first.rows).toHaveLength(2);
    expect(first.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(first.metadata.resourceVersion).toBe(plain.metadata.resourceVersion);
    expect(typeof first.metadata.continue).toBe("string");
    expect(first.metadata.continue.length).toBeGreaterThan(0);
    expect(first.metadata.remainingItemCount).toBe(LISTED.length - 2);
    expect(first.metadata.remainingItemCount).toBe(plain.metadata.remainingItemCount);
    // Follow the token: every page is a Table, the last without continue or remainingItemCount.
    const seen: string[] = first.rows.map((r: any) => r.cells[0]);
    let page = first;
    for (let i = 0; page.metadata.continue && i < 10; i++) {
      page = (await getJSON(`${CMS}?limit=2&continue=${encodeURIComponent(page.metadata.continue)}`, accept)).body;
      expect(page.kind).toBe("Table");
      expect(page.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      seen.push(...page.rows.map((r: any) => r.cells[0]));
    }
    expect(seen).toEqual(LISTED);
    expect(page.metadata.continue ?? "").toBe("");
    expect(page.metadata.remainingItemCount).toBeUndefined();
  });

  test("pods: upstream columns, wide ones at priority 1", async () => {
    const path = `/api/v1/namespaces/${NS}/pods`;
    expectCode(await s.call("POST", path, { metadata: { name: "p" }, spec: { nodeName: "node-1", containers: [{ name: "c", image: "nginx" }] } }), 201, "POST pod");
    const { body: t } = await getJSON(path, table("meta.k8s.io", "v1"));
    expect(t.columnDefinitions.map((c: any) => `${c.name}:${c.priority}`)).toEqual([
      "Name:0", "Ready:0", "Status:0", "Restarts:0", "Age:0", "IP:1", "Node:1", "Nominated Node:1", "Readiness Gates:1",
    ]);
    expect(t.rows[0].cells.slice(0, 4)).toEqual(["p", "0/1", "Pending", 0]);
    expect(t.rows[0].cells[6]).toBe("node-1");
  });
});

// ---- every built-in type: Table and protobuf for get and list

describe("every built-in type", () => {
  const made = new Map<string, any>();
  const listable = BUILTIN.filter((d) => !d.verbs || (d.verbs.includes("create") && d.verbs.includes("get") && d.verbs.includes("list")));
  beforeAll(async () => {
    for (const d of listable) {
      const body = minimalBody(d, `repr-${d.group.split(".")[0] || "core"}-${d.singular.replace(/[^a-z0-9]/g, "")}`, ALL_NS);
      const r = await s.call("POST", pathFor(d, ALL_NS), body);
      expectCode(r, 201, `POST ${typeLabel(d)}`);
      made.set(typeLabel(d), r.body);
    }
  }, 60_000);

  for (const d of listable) {
    test(`${typeLabel(d)}: Table for get and list`, async () => {
      const obj = made.get(typeLabel(d));
      const name = obj.metadata.name;
      for (const path of [pathFor(d, ALL_NS, name), `${pathFor(d, ALL_NS)}?fieldSelector=metadata.name%3D${encodeURIComponent(name)}`]) {
        const { body: t } = await getJSON(path, table("meta.platform.io", "v1beta1"));
        expect(t.kind).toBe("Table");
        expect(t.apiVersion).toBe("meta.platform.io/v1beta1");
        // Events lead with Last Seen and carry Name at priority 1; every other type leads with Name.
        const at = t.columnDefinitions.findIndex((c: any) => c.name === "Name");
        expect(at).toBeGreaterThanOrEqual(0);
        if (d.kind !== "Event") expect(at).toBe(0);
        expect(t.columnDefinitions[at].format).toBe("name");
        expect(t.rows).toHaveLength(1);
        expect(t.rows[0].cells[at]).toBe(name);
        expect(t.rows[0].cells).toHaveLength(t.columnDefinitions.length);
        expect(t.rows[0].object.metadata.uid).toBe(obj.metadata.uid);
      }
    });

    test(`${typeLabel(d)}: protobuf get and list decode to the JSON object`, async () => {
      const obj = made.get(typeLabel(d));
      const one = pathFor(d, ALL_NS, obj.metadata.name);
      const json = (await getJSON(one, "application/json")).body;
      const r = await raw("GET", one, { Accept: PB_K8S });
      expectRaw(r, 200, what("GET", one, PB_K8S));
      expect(r.headers.get("content-type")).toBe(PB_K8S);
      expect(prefixOf(r.bytes)).toEqual(PREFIX);
      expect(dropEmpty(decodeObject(r.bytes))).toEqual(dropEmpty(json));

      const coll = `${pathFor(d, ALL_NS)}?fieldSelector=metadata.name%3D${encodeURIComponent(obj.metadata.name)}`;
      const l = await raw("GET", coll, { Accept: PB_PLATFORM });
      expectRaw(l, 200, what("GET", coll, PB_PLATFORM));
      expect(l.headers.get("content-type")).toBe(PB_PLATFORM);
      expect(prefixOf(l.bytes)).toEqual(PREFIX);
      const list = decodeObject(l.bytes);
      expect(list.kind).toBe(`${d.kind}List`);
      expect(list.apiVersion).toBe(apiVersionOf(d));
      expect(list.items).toHaveLength(1);
      expect(dropEmpty({ apiVersion: apiVersionOf(d), kind: d.kind, ...list.items[0] })).toEqual(dropEmpty(json));
    });
  }
});

// ---- PartialObjectMetadata

describe("PartialObjectMetadata", () => {
  for (const [g, v] of META_GVS) {
    test(`get as ${g}/${v}`, async () => {
      const plain = (await getJSON(`${CMS}/a`, "application/json")).body;
      const { body, headers } = await getJSON(`${CMS}/a`, pom(g, v));
      expectAsContentType(headers, "PartialObjectMetadata", g, v, what("GET", `${CMS}/a`, pom(g, v)));
      expect(body).toEqual({ kind: "PartialObjectMetadata", apiVersion: `${g}/${v}`, metadata: plain.metadata });
    });

    test(`list as ${g}/${v}`, async () => {
      const plain = (await getJSON(CMS, "application/json")).body;
      const { body, headers } = await getJSON(CMS, pomList(g, v));
      expectAsContentType(headers, "PartialObjectMetadataList", g, v, what("GET", CMS, pomList(g, v)));
      expect(body.kind).toBe("PartialObjectMetadataList");
      expect(body.apiVersion).toBe(`${g}/${v}`);
      expect(body.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(body.items.map((i: any) => i.metadata.name).sort()).toEqual(LISTED);
      for (const item of body.items) {
        expect(Object.keys(item).sort()).toEqual(["apiVersion", "kind", "metadata"]);
        expect(item.kind).toBe("PartialObjectMetadata");
        expect(item.apiVersion).toBe(`${g}/${v}`);
        expect(item.metadata).toEqual(plain.items.find((p: any) => p.metadata.name === item.metadata.name).metadata);
      }
    });
  }

  test("list with limit keeps continue and remainingItemCount", async () => {
    const { body } = await getJSON(`${CMS}?limit=2`, pomList("meta.k8s.io", "v1"));
    expect(body.items).toHaveLength(2);
    expect(body.metadata.continue).toBeTruthy();
    expect(body.metadata.remainingItemCount).toBe(LISTED.length - 2);
  });

  // client-go's metadata client (garbage collector, quota controller) asks binary first, then JSON.
  test("the metadata informer's Accept: list, then watch", async () => {
    const listAccept = `${PB_K8S};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,${pomList("meta.k8s.io", "v1")},application/json`;
    const l = await raw("GET", `${CMS}?limit=500`, { Accept: listAccept });
    expectRaw(l, 200, what("GET", CMS, listAccept));
    const ct = media(l.headers.get("content-type"));
    let list: any;
    if (ct.type === "application/json") list = JSON.parse(l.text);
    else { expect(ct.type).toBe(PB_K8S); list = decodeObject(l.bytes); }
    expect(list.kind).toBe("PartialObjectMetadataList");
    expect(list.items.map((i: any) => i.metadata.name).sort()).toEqual(LISTED);

    const watchAccept = `${PB_K8S};as=PartialObjectMetadata;g=meta.k8s.io;v=v1,${pom("meta.k8s.io", "v1")},application/json`;
    const path = `${WCMS}?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=20`;
    const { headers, bytes } = await readStream(path, { Accept: watchAccept }, (b) => jsonLines(b).length >= 3, () => churn("pom-watch"));
    expectAsContentType(headers, "PartialObjectMetadata", "meta.k8s.io", "v1", what("WATCH", path, watchAccept));
    const events = jsonLines(bytes);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    for (const e of events) {
      expect(e.object.kind).toBe("PartialObjectMetadata");
      expect(e.object.apiVersion).toBe("meta.k8s.io/v1");
      expect(e.object.metadata.name).toBe("pom-watch");
      expect(e.object.data).toBeUndefined();
    }
  });
});

// ---- YAML

describe("YAML", () => {
  test("get and list with Accept: application/yaml", async () => {
    for (const path of [`${CMS}/a`, CMS]) {
      const json = (await getJSON(path, "application/json")).body;
      const r = await raw("GET", path, { Accept: "application/yaml" });
      expectRaw(r, 200, what("GET", path, "application/yaml"));
      expect(media(r.headers.get("content-type")).type).toBe("application/yaml");
      expect(r.text.trimStart().startsWith("{")).toBe(false); // YAML, not JSON (which is also YAML)
      expect(YAML.parse(r.text)).toEqual(json);
    }
  });

  test("create with a JSON body answers YAML when asked", async () => {
    const r = await raw("POST", WCMS, { "Content-Type": "application/json", Accept: "application/yaml" }, JSON.stringify({ metadata: { name: "yaml-reply" }, data: { k: "v" } }));
    expectRaw(r, 201, what("POST", WCMS, "application/yaml"));
    expect(media(r.headers.get("content-type")).type).toBe("application/yaml");
    const o = YAML.parse(r.text);
    expect(o.kind).toBe("ConfigMap");
    expect(o.data).toEqual({ k: "v" });
  });

  // kubectl (go-yaml v2 through sigs.k8s.io/yaml) and PyYAML read YAML 1.1, where yes/no/on/off/y/n are
  // booleans and 2021-01-01 a timestamp; upstream's encoder quotes such strings so every reader gets strings.
  test("strings that YAML 1.1 would read as booleans, numbers or timestamps are quoted", async () => {
    const data = { a: "yes", b: "no", c: "on", d: "off", e: "y", f: "n", g: "2021-01-01", h: "1_000", i: "true", j: "0o17", k: "012" };
    expectCode(await s.call("POST", WCMS, { metadata: { name: "yaml-1-1" }, data }), 201, "POST yaml-1-1");
    const json = (await getJSON(`${WCMS}/yaml-1-1`, "application/json")).body;
    const r = await raw("GET", `${WCMS}/yaml-1-1`, { Accept: "application/yaml" });
    expectRaw(r, 200, "GET yaml-1-1 as YAML");
    const read = YAML.parse(r.text, { version: "1.1" });
    const asYaml11 = { data: read.data, creationTimestamp: read.metadata?.creationTimestamp };
    const want = { data: json.data, creationTimestamp: json.metadata.creationTimestamp };
    if (JSON.stringify(asYaml11) !== JSON.stringify(want)) {
      throw new Error(`GET ${WCMS}/yaml-1-1 (Accept: application/yaml) read by a YAML 1.1 parser differs from the JSON object:\n${r.text}\n` +
        `read as ${JSON.stringify(asYaml11)}, expected ${JSON.stringify(want)}`);
    }
  });
});

// ---- gzip

describe("gzip (APIResponseCompression)", () => {
  const parseGunzipped = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(Bun.gunzipSync(b as Uint8Array<ArrayBuffer>)));

  test("a response over 128 KB is gzipped when the client accepts gzip", async () => {
    const r = await raw("GET", BIG, { Accept: "application/json", "Accept-Encoding": "gzip" }, undefined, { decompress: false });
    expectRaw(r, 200, what("GET", BIG));
    expect(r.headers.get("content-encoding")).toBe("gzip");
    expect(prefixOf(r.bytes).slice(0, 2)).toEqual([0x1f, 0x8b]);
    const list = parseGunzipped(r.bytes);
    expect(list.kind).toBe("ConfigMapList");
    expect(list.items).toHaveLength(BIG_LISTED);
    expect(Bun.gunzipSync(r.bytes as Uint8Array<ArrayBuffer>).length).toBeGreaterThan(128 * 1024);
    expect(r.bytes.length).toBeLessThan(128 * 1024);
  });

  test("the same response is plain without Accept-Encoding: gzip", async () => {
    const r = await raw("GET", BIG, { Accept: "application/json", "Accept-Encoding": "identity" }, undefined, { decompress: false });
    expectRaw(r, 200, what("GET", BIG));
    expect(r.headers.get("content-encoding")).toBeNull();
    expect(r.bytes.length).toBeGreaterThan(128 * 1024);
    expect(JSON.parse(r.text).items).toHaveLength(BIG_LISTED);
  });

  test("a small response is not gzipped", async () => {
    for (const path of [`${CMS}/a`, CMS]) {
      const r = await raw("GET", path, { Accept: "application/json", "Accept-Encoding": "gzip" }, undefined, { decompress: false });
      expectRaw(r, 200, what("GET", path));
      expect(r.headers.get("content-encoding")).toBeNull();
      expect(JSON.parse(r.text).metadata).toBeDefined();
    }
  });

  test("YAML and protobuf responses over 128 KB are gzipped too", async () => {
    const y = await raw("GET", BIG, { Accept: "application/yaml", "Accept-Encoding": "gzip" }, undefined, { decompress: false });
    expectRaw(y, 200, what("GET", BIG, "application/yaml"));
    expect(y.headers.get("content-encoding")).toBe("gzip");
    expect(YAML.parse(new TextDecoder().decode(Bun.gunzipSync(y.bytes as Uint8Array<ArrayBuffer>))).items).toHaveLength(BIG_LISTED);

    const p = await raw("GET", BIG, { Accept: PB_K8S, "Accept-Encoding": "gzip" }, undefined, { decompress: false });
    expectRaw(p, 200, what("GET", BIG, PB_K8S));
    expect(p.headers.get("content-encoding")).toBe("gzip");
    expect(p.headers.get("content-type")).toBe(PB_K8S);
    const bytes = Bun.gunzipSync(p.bytes as Uint8Array<ArrayBuffer>);
    expect(prefixOf(bytes)).toEqual(PREFIX);
    expect(decodeObject(bytes).items).toHaveLength(BIG_LISTED);
  });
});

// ---- protobuf

describe("protobuf", () => {
  for (const type of [PB_K8S, PB_PLATFORM]) {
    test(`get and list with Accept: ${type}`, async () => {
      const json = (await getJSON(`${CMS}/a`, "application/json")).body;
      const g = await raw("GET", `${CMS}/a`, { Accept: type });
      expectRaw(g, 200, what("GET", `${CMS}/a`, type));
      expect(g.headers.get("content-type")).toBe(type);
      expect(prefixOf(g.bytes)).toEqual(PREFIX);
      expect(decodeObject(g.bytes)).toEqual(json);

      const l = await raw("GET", CMS, { Accept: type });
      expectRaw(l, 200, what("GET", CMS, type));
      expect(l.headers.get("content-type")).toBe(type);
      expect(prefixOf(l.bytes)).toEqual(PREFIX);
      const list = decodeObject(l.bytes);
      expect(list.kind).toBe("ConfigMapList");
      expect(list.apiVersion).toBe("v1");
      expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(list.items.map((i: any) => i.metadata.name).sort()).toEqual(LISTED);
    });

    test(`watch with Accept: ${type}: length-prefixed frames`, async () => {
      const name = `pbw-${type.includes("platform") ? "platform" : "k8s"}`;
      const rv = await currentRV();
      const path = `${WCMS}?watch=true&resourceVersion=${rv}&timeoutSeconds=20`;
      const count = (b: Uint8Array) => decodeWatchFrames(b).events.length;
      const { headers, bytes } = await readStream(path, { Accept: type }, (b) => count(b) >= 3, () => churn(name));
      // Upstream adds `;stream=watch` to a binary watch's Content-Type; the media type itself is the one asked.
      expect(media(headers.get("content-type")).type).toBe(type);
      // Each frame: a 4-byte big-endian length, then a WatchEvent whose object is a whole prefixed envelope.
      let pos = 0, frames = 0;
      while (pos < bytes.length) {
        const len = new DataView(bytes.buffer, bytes.byteOffset + pos, 4).getUint32(0, false);
        expect(pos + 4 + len).toBeLessThanOrEqual(bytes.length);
        pos += 4 + len;
        frames++;
      }
      expect(pos).toBe(bytes.length);
      const { events, rest } = decodeWatchFrames(bytes);
      expect(rest.length).toBe(0);
      expect(frames).toBe(events.length);
      expect(events.map((e: WatchEvent) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
      for (const e of events) {
        expect(e.object.kind).toBe("ConfigMap");
        expect(e.object.apiVersion).toBe("v1");
        expect(e.object.metadata.name).toBe(name);
      }
      expect(events.map((e: WatchEvent) => e.object.data.step)).toEqual(["1", "2", "2"]);
    });
  }

  test("watch with protobuf request bodies and a protobuf reply", async () => {
    const rv = await currentRV();
    const path = `${WCMS}?watch=true&resourceVersion=${rv}&timeoutSeconds=20`;
    const pb = (o: any) => ({ data: encodeObject(o) as unknown as Body, type: PB_K8S });
    const { bytes } = await readStream(path, { Accept: PB_PLATFORM }, (b) => decodeWatchFrames(b).events.length >= 3, () => churn("pbw-both", pb));
    expect(decodeWatchFrames(bytes).events.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.data.step}`))
      .toEqual(["ADDED pbw-both 1", "MODIFIED pbw-both 2", "DELETED pbw-both 2"]);
  });

  for (const type of [PB_K8S, PB_PLATFORM]) {
    test(`POST and PUT with a ${type} body and a JSON Accept answer JSON`, async () => {
      const name = `pb-body-${type.includes("platform") ? "platform" : "k8s"}`;
      const body = encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { via: "protobuf" } }, data: { color: "blue" } });
      expect(prefixOf(body)).toEqual(PREFIX);
      const c = await raw("POST", WCMS, { "Content-Type": type, Accept: "application/json" }, body as unknown as Body);
      expectRaw(c, 201, `POST ${WCMS} (Content-Type: ${type}, Accept: application/json)`);
      expect(c.headers.get("content-type")).toBe("application/json");
      const created = JSON.parse(c.text);
      expect(created.kind).toBe("ConfigMap");
      expect(created.metadata.name).toBe(name);
      expect(created.metadata.namespace).toBe(W);
      expect(created.metadata.labels).toEqual({ via: "protobuf" });
      expect(created.data).toEqual({ color: "blue" });

      const upd = encodeObject({ ...created, data: { color: "green" } });
      const u = await raw("PUT", `${WCMS}/${name}`, { "Content-Type": type, Accept: "application/json" }, upd as unknown as Body);
      expectRaw(u, 200, `PUT ${WCMS}/${name} (Content-Type: ${type}, Accept: application/json)`);
      expect(u.headers.get("content-type")).toBe("application/json");
      const updated = JSON.parse(u.text);
      expect(updated.data).toEqual({ color: "green" });
      expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
      expect((await getJSON(`${WCMS}/${name}`, "application/json")).body).toEqual(updated);
    });
  }

  test("request and response formats are independent", async () => {
    // JSON in, protobuf out.
    const a = await raw("POST", WCMS, { "Content-Type": "application/json", Accept: PB_PLATFORM }, JSON.stringify({ metadata: { name: "json-in-pb-out" }, data: { k: "1" } }));
    expectRaw(a, 201, `POST (Content-Type: application/json, Accept: ${PB_PLATFORM})`);
    expect(a.headers.get("content-type")).toBe(PB_PLATFORM);
    expect(prefixOf(a.bytes)).toEqual(PREFIX);
    expect(decodeObject(a.bytes)).toMatchObject({ kind: "ConfigMap", metadata: { name: "json-in-pb-out" }, data: { k: "1" } });

    // protobuf in, YAML out.
    const b = await raw("POST", WCMS, { "Content-Type": PB_PLATFORM, Accept: "application/yaml" },
      encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pb-in-yaml-out" }, data: { k: "2" } }) as unknown as Body);
    expectRaw(b, 201, `POST (Content-Type: ${PB_PLATFORM}, Accept: application/yaml)`);
    expect(media(b.headers.get("content-type")).type).toBe("application/yaml");
    expect(YAML.parse(b.text)).toMatchObject({ kind: "ConfigMap", metadata: { name: "pb-in-yaml-out" }, data: { k: "2" } });

    // protobuf in, the other protobuf type out (kubectl 1.32's `create`: protobuf first, JSON as fallback).
    const c = await raw("POST", WCMS, { "Content-Type": PB_K8S, Accept: `${PB_K8S},application/json` },
      encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pb-in-pb-out" }, data: { k: "3" } }) as unknown as Body);
    expectRaw(c, 201, `POST (Content-Type: ${PB_K8S}, Accept: ${PB_K8S},application/json)`);
    expect(c.headers.get("content-type")).toBe(PB_K8S);
    expect(decodeObject(c.bytes)).toMatchObject({ kind: "ConfigMap", metadata: { name: "pb-in-pb-out" }, data: { k: "3" } });

    // The object written from protobuf reads back as a Table.
    const t = await raw("GET", `${WCMS}/pb-in-pb-out`, { Accept: `${table("meta.k8s.io", "v1")}` });
    expectRaw(t, 200, "GET pb-in-pb-out as Table");
    expect(JSON.parse(t.text).rows[0].cells[0]).toBe("pb-in-pb-out");
  });

  test("a protobuf body without the 4-byte prefix is a 400", async () => {
    const full = encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "no-prefix" }, data: { k: "v" } });
    const bare = full.slice(4);
    for (const type of [PB_K8S, PB_PLATFORM]) {
      const r = await raw("POST", WCMS, { "Content-Type": type, Accept: "application/json" }, bare as unknown as Body);
      let body: any = r.text;
      try { body = JSON.parse(r.text); } catch { /* shown as text */ }
      expectStatus({ status: r.status, body, headers: r.headers }, 400, "BadRequest", `POST ${WCMS} (Content-Type: ${type}) without the prefix`);
    }
    // A JSON body labelled protobuf, and a PUT without the prefix, too.
    const j = await raw("POST", WCMS, { "Content-Type": PB_K8S, Accept: "application/json" }, JSON.stringify({ metadata: { name: "no-prefix" } }));
    expectRaw(j, 400, `POST ${WCMS} (Content-Type: ${PB_K8S}) with a JSON body`);
    const current = (await getJSON(`${CMS}/a`, "application/json")).body;
    const put = await raw("PUT", `${CMS}/a`, { "Content-Type": PB_K8S, Accept: "application/json" }, encodeObject(current).slice(4) as unknown as Body);
    expectRaw(put, 400, `PUT ${CMS}/a (Content-Type: ${PB_K8S}) without the prefix`);
    expect((await s.call("GET", `${WCMS}/no-prefix`)).status).toBe(404);
  });
});
