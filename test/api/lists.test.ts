// Lists: the envelope, label and field selectors, and limit/continue paging.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { NAMESPACE_BUILTINS, createNamespace, expectCode, expectStatus } from "./fixtures.ts";

// Polls below have their own deadlines; a test timeout would kill the server for the tests after it.
setDefaultTimeout(30_000);

const NS = "lists";
const OTHER = "lists-other";
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
let s: TestServer;

/** The label sets under test: a name per object. */
const LABELLED: Record<string, Record<string, string> | undefined> = {
  a: { env: "prod", tier: "web" },
  b: { env: "dev", tier: "web" },
  c: { env: "prod" },
  d: undefined,
  e: { env: "test", tier: "db" },
};

beforeAll(async () => {
  s = await startServer();
  await createNamespace(s, NS);
  await createNamespace(s, OTHER);
  for (const [name, labels] of Object.entries(LABELLED)) {
    const r = await s.call("POST", CMS, { metadata: { name, ...(labels ? { labels } : {}) } });
    expectCode(r, 201, `POST ${name}`);
  }
  expectCode(await s.call("POST", `/api/v1/namespaces/${OTHER}/configmaps`, { metadata: { name: "a", labels: { env: "prod" } } }), 201, "POST other/a");
  const pod = (name: string, nodeName?: string) => ({ metadata: { name }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "nginx:1.21" }] } });
  for (const [name, node] of [["p1", "node-1"], ["p2", "node-2"], ["p3", undefined], ["p4", "node-1"]] as const) {
    expectCode(await s.call("POST", PODS, pod(name, node)), 201, `POST pod ${name}`);
  }
  // p4 runs; the others stay Pending.
  const p4 = (await s.call("GET", `${PODS}/p4`)).body;
  p4.status = { ...p4.status, phase: "Running" };
  expectCode(await s.call("PUT", `${PODS}/p4/status`, p4), 200, "PUT p4/status Running");
}, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

const all = (body: any): string[] => (body.items as any[]).map((o) => o.metadata.name).sort();
/** The names of a list of this suite's objects: the kube-root-ca.crt the server keeps in every namespace is left out. */
const names = (body: any): string[] => all(body).filter((n) => n !== NAMESPACE_BUILTINS.configmaps);

describe("list envelope", () => {
  test("core type", async () => {
    const r = await s.call("GET", CMS);
    expectCode(r, 200, "LIST configmaps");
    expect(r.headers.get("content-type")).toStartWith("application/json");
    expect(r.body.kind).toBe("ConfigMapList");
    expect(r.body.apiVersion).toBe("v1");
    expect(r.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.body.metadata.continue ?? "").toBe("");
    expect(r.body.metadata.remainingItemCount).toBeUndefined();
    expect(Array.isArray(r.body.items)).toBe(true);
    expect(names(r.body)).toEqual(["a", "b", "c", "d", "e"]);
  });

  test("named group, across namespaces, and cluster-scoped", async () => {
    const d = await s.call("GET", "/apis/apps/v1/deployments");
    expectCode(d, 200, "LIST deployments");
    expect(d.body).toMatchObject({ kind: "DeploymentList", apiVersion: "apps/v1", items: [] });
    expect(d.body.metadata.resourceVersion).toMatch(/^\d+$/);
    const ns = await s.call("GET", "/api/v1/namespaces");
    expect(ns.body.kind).toBe("NamespaceList");
    const all = await s.call("GET", "/api/v1/configmaps");
    expect(all.body.kind).toBe("ConfigMapList");
    const where = (all.body.items as any[]).filter((o) => o.metadata.name === "a").map((o) => o.metadata.namespace).sort();
    expect(where).toEqual([NS, OTHER]);
  });

  test("the list resourceVersion is not older than the last write", async () => {
    const w = await s.call("POST", `/api/v1/namespaces/${OTHER}/configmaps`, { metadata: { name: "rv-probe" } });
    expectCode(w, 201, "POST rv-probe");
    const r = await s.call("GET", CMS);
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(w.body.metadata.resourceVersion));
  });

  test("an empty collection is an empty list", async () => {
    const r = await s.call("GET", `/api/v1/namespaces/${NS}/secrets`);
    expectCode(r, 200, "LIST secrets");
    expect(r.body.kind).toBe("SecretList");
    expect(r.body.items).toEqual([]);
  });
});

describe("label selectors", () => {
  const cases: [string, string[]][] = [
    ["env=prod", ["a", "c"]],
    ["env==prod", ["a", "c"]],
    ["env!=prod", ["b", "d", "e"]],
    ["env in (prod,dev)", ["a", "b", "c"]],
    ["env in (prod, test)", ["a", "c", "e"]],
    ["env notin (prod,dev)", ["d", "e"]],
    ["tier", ["a", "b", "e"]],
    ["!tier", ["c", "d"]],
    ["env=prod,tier=web", ["a"]],
    ["env=prod,!tier", ["c"]],
    ["env,tier notin (web)", ["c", "e"]],
    ["env=nope", []],
    ["", ["a", "b", "c", "d", "e"]],
    [" env = prod ", ["a", "c"]],
  ];
  for (const [sel, want] of cases) {
    test(JSON.stringify(sel), async () => {
      const r = await s.call("GET", `${CMS}?labelSelector=${encodeURIComponent(sel)}`);
      expectCode(r, 200, `labelSelector=${sel}`);
      expect(r.body.kind).toBe("ConfigMapList");
      expect(names(r.body)).toEqual(want);
    });
  }

  test("across namespaces", async () => {
    const r = await s.call("GET", `/api/v1/configmaps?labelSelector=${encodeURIComponent("env=prod")}`);
    expectCode(r, 200, "LIST all configmaps env=prod");
    const got = (r.body.items as any[]).map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();
    expect(got).toEqual([`${NS}/a`, `${NS}/c`, `${OTHER}/a`].sort());
  });

  test("a malformed selector → 400", async () => {
    expectStatus(await s.call("GET", `${CMS}?labelSelector=${encodeURIComponent("env in (prod")}`), 400, "BadRequest", "labelSelector=env in (prod");
  });
});

describe("field selectors", () => {
  test("metadata.name", async () => {
    expect(names((await s.call("GET", `${CMS}?fieldSelector=metadata.name%3Da`)).body)).toEqual(["a"]);
    expect(names((await s.call("GET", `${CMS}?fieldSelector=metadata.name%3D%3Da`)).body)).toEqual(["a"]);
    expect(names((await s.call("GET", `${CMS}?fieldSelector=metadata.name!%3Da`)).body)).toEqual(["b", "c", "d", "e"]);
    expect(names((await s.call("GET", `${CMS}?fieldSelector=metadata.name%3Dnope`)).body)).toEqual([]);
  });

  test("metadata.namespace across namespaces", async () => {
    const r = await s.call("GET", `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${OTHER}`);
    expectCode(r, 200, "LIST all configmaps metadata.namespace");
    for (const o of r.body.items) expect(o.metadata.namespace).toBe(OTHER);
    expect(names(r.body)).toEqual(["a", "rv-probe"]);
    const not = await s.call("GET", `/api/v1/configmaps?fieldSelector=metadata.namespace!%3D${OTHER}`);
    for (const o of not.body.items) expect(o.metadata.namespace).not.toBe(OTHER);
  });

  test("field and label selectors together", async () => {
    const r = await s.call("GET", `${CMS}?labelSelector=env%3Dprod&fieldSelector=metadata.name!%3Da`);
    expect(names(r.body)).toEqual(["c"]);
  });

  test("pods by spec.nodeName", async () => {
    expect(names((await s.call("GET", `${PODS}?fieldSelector=spec.nodeName%3Dnode-1`)).body)).toEqual(["p1", "p4"]);
    expect(names((await s.call("GET", `${PODS}?fieldSelector=spec.nodeName%3Dnode-2`)).body)).toEqual(["p2"]);
    // kubectl and the scheduler ask for unscheduled pods this way.
    expect(names((await s.call("GET", `${PODS}?fieldSelector=spec.nodeName%3D`)).body)).toEqual(["p3"]);
    expect(names((await s.call("GET", `/api/v1/pods?fieldSelector=spec.nodeName!%3D`)).body)).toEqual(["p1", "p2", "p4"]);
  });

  test("pods by status.phase", async () => {
    expect(names((await s.call("GET", `${PODS}?fieldSelector=status.phase%3DRunning`)).body)).toEqual(["p4"]);
    expect(names((await s.call("GET", `${PODS}?fieldSelector=status.phase%3DPending`)).body)).toEqual(["p1", "p2", "p3"]);
    expect(names((await s.call("GET", `${PODS}?fieldSelector=${encodeURIComponent("status.phase!=Running,spec.nodeName=node-1")}`)).body)).toEqual(["p1"]);
  });

  test("a field a type does not support → 400", async () => {
    expectStatus(await s.call("GET", `${CMS}?fieldSelector=spec.nodeName%3Dnode-1`), 400, "BadRequest", "configmaps by spec.nodeName");
    expectStatus(await s.call("GET", `${PODS}?fieldSelector=spec.containers%3Dx`), 400, "BadRequest", "pods by spec.containers");
  });
});

describe("limit and continue", () => {
  const PAGED = "lists-paged";
  const PCMS = `/api/v1/namespaces/${PAGED}/configmaps`;
  const N = 11;
  /** The collection: the items and the namespace's kube-root-ca.crt (which sorts last). */
  const TOTAL = N + 1;

  beforeAll(async () => {
    await createNamespace(s, PAGED);
    for (let i = 0; i < N; i++) {
      const name = `item-${String(i).padStart(2, "0")}`;
      expectCode(await s.call("POST", PCMS, { metadata: { name, labels: { odd: String(i % 2 === 1) } } }), 201, `POST ${name}`);
    }
  }, 30_000);

  async function pages(path: string, limit: number) {
    const sep = path.includes("?") ? "&" : "?";
    const chunks: any[] = [];
    let token = "";
    for (let i = 0; i < 50; i++) {
      const r = await s.call("GET", `${path}${sep}limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ""}`);
      expectCode(r, 200, `page ${i} of ${path}`);
      chunks.push(r.body);
      token = r.body.metadata.continue ?? "";
      if (!token) return chunks;
    }
    throw new Error("paging did not end");
  }

  test("pages of 3 return every item exactly once", async () => {
    const chunks = await pages(PCMS, 3);
    expect(chunks.map((c) => c.items.length)).toEqual([3, 3, 3, 3]);
    const got = chunks.flatMap((c) => c.items.map((o: any) => o.metadata.name));
    expect(got.length).toBe(TOTAL);
    expect(new Set(got).size).toBe(TOTAL);
    expect([...got].sort()).toEqual(all((await s.call("GET", PCMS)).body));
    for (const c of chunks) expect(c.kind).toBe("ConfigMapList");
  });

  test("every chunk has the first chunk's resourceVersion and remainingItemCount counts down", async () => {
    const chunks = await pages(PCMS, 4);
    const rvs = new Set(chunks.map((c) => c.metadata.resourceVersion));
    expect(rvs.size).toBe(1);
    expect(chunks.map((c) => c.metadata.remainingItemCount)).toEqual([8, 4, undefined]);
    expect(chunks.at(-1).metadata.continue ?? "").toBe("");
  });

  test("a chunked list is a snapshot: writes after the first chunk are not shown", async () => {
    const first = await s.call("GET", `${PCMS}?limit=5`);
    expectCode(first, 200, "first chunk");
    expectCode(await s.call("POST", PCMS, { metadata: { name: "item-99", labels: { odd: "true" } } }), 201, "POST item-99");
    expectCode(await s.call("DELETE", `${PCMS}/item-10`), 200, "DELETE item-10");
    let token = first.body.metadata.continue;
    const seen = first.body.items.map((o: any) => o.metadata.name);
    while (token) {
      const r = await s.call("GET", `${PCMS}?limit=5&continue=${encodeURIComponent(token)}`);
      expectCode(r, 200, "next chunk");
      expect(r.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
      seen.push(...r.body.items.map((o: any) => o.metadata.name));
      token = r.body.metadata.continue;
    }
    expect(seen).toContain("item-10");
    expect(seen).not.toContain("item-99");
    expect(seen.length).toBe(TOTAL);
    // Put the collection back as it was.
    expectCode(await s.call("DELETE", `${PCMS}/item-99`), 200, "DELETE item-99");
    expectCode(await s.call("POST", PCMS, { metadata: { name: "item-10", labels: { odd: "false" } } }), 201, "POST item-10");
  });

  test("paging with a label selector returns the matches exactly once, without remainingItemCount", async () => {
    const chunks = await pages(`${PCMS}?labelSelector=odd%3Dtrue`, 2);
    const all = chunks.flatMap((c) => c.items.map((o: any) => o.metadata.name));
    expect(all).toEqual(["item-01", "item-03", "item-05", "item-07", "item-09"]);
    for (const c of chunks) expect(c.metadata.remainingItemCount).toBeUndefined();
  });

  test("paging across namespaces", async () => {
    const chunks = await pages("/api/v1/configmaps", 2);
    const all = chunks.flatMap((c) => c.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`));
    expect(new Set(all).size).toBe(all.length);
    const full = (await s.call("GET", "/api/v1/configmaps")).body.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect([...all].sort()).toEqual([...full].sort());
  });

  test("a limit larger than the collection returns it whole", async () => {
    const r = await s.call("GET", `${PCMS}?limit=500`);
    expect(r.body.items.length).toBe(TOTAL);
    expect(r.body.metadata.continue ?? "").toBe("");
    expect(r.body.metadata.remainingItemCount).toBeUndefined();
  });

  test("continue with a resourceVersion other than 0 → 400", async () => {
    const first = await s.call("GET", `${PCMS}?limit=2`);
    const token = encodeURIComponent(first.body.metadata.continue);
    expectStatus(await s.call("GET", `${PCMS}?limit=2&continue=${token}&resourceVersion=${first.body.metadata.resourceVersion}`), 400, "BadRequest", "continue + resourceVersion");
    expectCode(await s.call("GET", `${PCMS}?limit=2&continue=${token}&resourceVersion=0`), 200, "continue + resourceVersion=0");
  });

  test("a garbage continue token → 400", async () => {
    expectStatus(await s.call("GET", `${PCMS}?limit=2&continue=not-a-token`), 400, "BadRequest", "garbage continue");
  });
});

describe("a collection listed again at the same revision", () => {
  const BIG = "lists-big";
  const BIG_CMS = `/api/v1/namespaces/${BIG}/configmaps`;
  const text = async (path: string, headers: Record<string, string> = {}) => {
    const r = await s.req(path, { headers, decompress: false } as RequestInit);
    expect(r.status).toBe(200);
    return { bytes: new Uint8Array(await r.arrayBuffer()), headers: r.headers };
  };

  test("answers the same bytes, each one the whole list encoded, and a write is in the next list", async () => {
    const first = await text(CMS);
    const again = await text(CMS);
    expect(again.bytes).toEqual(first.bytes);
    const decoded = new TextDecoder().decode(first.bytes);
    expect(decoded).toBe(JSON.stringify(JSON.parse(decoded)));
    const rv = JSON.parse(decoded).metadata.resourceVersion;
    const w = await s.call("POST", CMS, { metadata: { name: "relisted" }, data: { k: "ü" } });
    expectCode(w, 201, "POST relisted");
    const after = JSON.parse(new TextDecoder().decode((await text(CMS)).bytes));
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    expect(after.items.find((o: any) => o.metadata.name === "relisted")?.data).toEqual({ k: "ü" });
    expectCode(await s.call("DELETE", `${CMS}/relisted`), 200, "DELETE relisted");
    expect(names((await s.call("GET", CMS)).body)).not.toContain("relisted");
  });

  test("as JSON, YAML and gzipped JSON alike, one after another", async () => {
    await createNamespace(s, BIG);
    // over 128 KB in all: answered gzipped to a client that takes it
    for (const i of [1, 2, 3]) expectCode(await s.call("POST", BIG_CMS, { metadata: { name: `big-${i}` }, data: { k: "x".repeat(50_000) } }), 201, `POST big-${i}`);
    const plain = await text(BIG_CMS);
    const yaml = await text(BIG_CMS, { Accept: "application/yaml" });
    expect(yaml.headers.get("content-type")).toBe("application/yaml");
    expect(new TextDecoder().decode(yaml.bytes)).toStartWith("kind: ConfigMapList\napiVersion: v1\n");
    for (let i = 0; i < 2; i++) {
      const gz = await text(BIG_CMS, { "Accept-Encoding": "gzip" });
      expect(gz.headers.get("content-encoding")).toBe("gzip");
      expect(Bun.gunzipSync(gz.bytes)).toEqual(plain.bytes);
    }
    expect((await text(BIG_CMS)).bytes).toEqual(plain.bytes);
    expect(JSON.parse(new TextDecoder().decode(plain.bytes)).items.map((o: any) => o.metadata.name)).toEqual(["big-1", "big-2", "big-3", NAMESPACE_BUILTINS.configmaps]);
  });
});
