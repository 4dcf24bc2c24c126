// Every failure is an upstream-shaped Status with the right code; no input a client can send gives a 500
// or harms stored data.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { type Reply, createNamespace, expectCode, expectStatus } from "./fixtures.ts";

// Polls below have their own deadlines; a test timeout would kill the server for the tests after it.
setDefaultTimeout(30_000);

const NS = "errs";
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
let s: TestServer;

/** Every reply of this file, to prove at the end that none was a server error. */
const seen: { what: string; status: number }[] = [];
/** The objects created before the abuse, as the server returned them. */
const before = new Map<string, any>();

async function call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply> {
  const r = await s.call(method, path, body, headers);
  seen.push({ what: `${method} ${path}`, status: r.status });
  return r;
}

/** A request with a raw body (string or bytes) and explicit headers. */
async function raw(method: string, path: string, body?: string | Uint8Array, headers: Record<string, string> = {}): Promise<Reply> {
  const r = await s.req(path, { method, body: body as RequestInit["body"], headers });
  const text = await r.text();
  let parsed: any = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  seen.push({ what: `${method} ${path}`, status: r.status });
  return { status: r.status, body: parsed, headers: r.headers };
}

const JSON_CT = { "Content-Type": "application/json" };
const YAML_CT = { "Content-Type": "application/yaml" };

beforeAll(async () => {
  s = await startServer();
  await createNamespace(s, NS);
  for (const name of ["keep-a", "keep-b"]) {
    const r = await s.call("POST", CMS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { keep: "yes" } }, data: { k: name } });
    expectCode(r, 201, `create ${name}`);
    before.set(`${CMS}/${name}`, r.body);
  }
  const p = await s.call("POST", PODS, { metadata: { name: "keep-pod" }, spec: { containers: [{ name: "c", image: "nginx:1.21" }] } });
  expectCode(p, 201, "create keep-pod");
  before.set(`${PODS}/keep-pod`, p.body);
  const d = await s.call("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, {
    metadata: { name: "keep-deploy" },
    spec: { selector: { matchLabels: { app: "k" } }, template: { metadata: { labels: { app: "k" } }, spec: { containers: [{ name: "c", image: "nginx:1.21" }] } } },
  });
  expectCode(d, 201, "create keep-deploy");
  before.set(`/apis/apps/v1/namespaces/${NS}/deployments/keep-deploy`, d.body);
}, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

describe("malformed bodies → 400 BadRequest", () => {
  const cases: [string, string, Record<string, string>][] = [
    ["truncated JSON", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"`, JSON_CT],
    ["JSON with a trailing comma", `{"metadata":{"name":"bad"},}`, JSON_CT],
    ["not JSON at all", `this is not json`, JSON_CT],
    ["a JSON array", `[{"metadata":{"name":"bad"}}]`, JSON_CT],
    ["a JSON string", `"configmap"`, JSON_CT],
    ["JSON null", `null`, JSON_CT],
    ["an empty body", ``, JSON_CT],
    ["YAML with a bad indent", `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n    labels: {a: b}\n`, YAML_CT],
    ["YAML with an unclosed flow map", `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad\n`, YAML_CT],
    ["a YAML scalar", `just a string`, YAML_CT],
  ];
  for (const [what, body, headers] of cases) {
    test(what, async () => {
      expectStatus(await raw("POST", CMS, body, headers), 400, "BadRequest", `POST ${what}`);
      expectStatus(await call("GET", `${CMS}/bad`), 404, "NotFound", `GET after POST ${what}`);
    });
  }

  test("malformed JSON on PUT", async () => {
    expectStatus(await raw("PUT", `${CMS}/keep-a`, `{"metadata":`, JSON_CT), 400, "BadRequest", "PUT truncated JSON");
  });

  test("malformed JSON on PATCH", async () => {
    expectStatus(await raw("PATCH", `${CMS}/keep-a`, `{"data":`, { "Content-Type": "application/merge-patch+json" }), 400, "BadRequest", "PATCH truncated JSON");
  });

  test("a valid YAML body is accepted", async () => {
    const r = await raw("POST", CMS, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n`, YAML_CT);
    expectCode(r, 201, "POST YAML");
    expect(r.body.data).toEqual({ k: "v" });
  });

  // Upstream decodes into typed structs, so a type mismatch is a 400 decode error and nothing is stored.
  const wrongTypes: [string, string, unknown][] = [
    ["metadata as a string", CMS, { metadata: "wrong" }],
    ["labels as a list", CMS, { metadata: { name: "wt-labels", labels: ["a"] } }],
    ["a data value as a number", CMS, { metadata: { name: "wt-data" }, data: { k: 5 } }],
    ["name as a number", CMS, { metadata: { name: 5 } }],
    ["pod containers as an object", PODS, { metadata: { name: "wt-pod" }, spec: { containers: { name: "c", image: "i" } } }],
  ];
  for (const [what, path, body] of wrongTypes) {
    test(`a field of the wrong JSON type: ${what}`, async () => {
      expectStatus(await call("POST", path, body), 400, "BadRequest", `POST ${what}`);
    });
  }
});

describe("body that does not fit the URL → 400", () => {
  test("wrong kind", async () => {
    const st = expectStatus(await call("POST", CMS, { apiVersion: "v1", kind: "Secret", metadata: { name: "wrongkind" } }), 400, "BadRequest", "POST Secret to configmaps");
    expect(st.message).toContain("ConfigMap");
    expectStatus(await call("GET", `${CMS}/wrongkind`), 404, "NotFound", "GET after wrong kind");
  });

  test("wrong apiVersion", async () => {
    expectStatus(await call("POST", CMS, { apiVersion: "apps/v1", kind: "ConfigMap", metadata: { name: "wrongav" } }), 400, "BadRequest", "POST apps/v1 ConfigMap");
    expectStatus(await call("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, { apiVersion: "v1", kind: "Deployment", metadata: { name: "wrongav" } }), 400, "BadRequest", "POST v1 Deployment");
    expectStatus(await call("GET", `${CMS}/wrongav`), 404, "NotFound", "GET after wrong apiVersion");
  });

  test("wrong kind or apiVersion on PUT", async () => {
    const cur = (await call("GET", `${CMS}/keep-a`)).body;
    expectStatus(await call("PUT", `${CMS}/keep-a`, { ...cur, kind: "Secret" }), 400, "BadRequest", "PUT kind Secret");
    expectStatus(await call("PUT", `${CMS}/keep-a`, { ...cur, apiVersion: "v2" }), 400, "BadRequest", "PUT apiVersion v2");
  });

  test("name in the URL differs from the body", async () => {
    const cur = (await call("GET", `${CMS}/keep-a`)).body;
    const other = structuredClone(cur);
    other.metadata.name = "keep-b";
    const st = expectStatus(await call("PUT", `${CMS}/keep-a`, other), 400, "BadRequest", "PUT keep-a with name keep-b");
    expect(st.message).toContain("does not match");
  });

  test("namespace in the body differs from the URL", async () => {
    expectStatus(await call("POST", CMS, { metadata: { name: "otherns", namespace: "default" } }), 400, "BadRequest", "POST namespace mismatch");
    expectStatus(await call("GET", "/api/v1/namespaces/default/configmaps/otherns"), 404, "NotFound", "GET after namespace mismatch");
  });
});

describe("invalid objects → 422 Invalid with causes", () => {
  async function invalid(path: string, body: unknown, field: string, what: string, kind = "ConfigMap") {
    const st = expectStatus(await call("POST", path, body), 422, "Invalid", what);
    expect(st.details?.kind).toBe(kind);
    const causes: any[] = st.details?.causes ?? [];
    if (!causes.some((c) => c.field === field && typeof c.reason === "string" && typeof c.message === "string")) {
      throw new Error(`${what}: no cause for field ${field}: ${JSON.stringify(st)}`);
    }
    return st;
  }

  test("names that are not DNS-1123 subdomains", async () => {
    for (const name of ["Bad_Name", "UPPER", "-lead", "trail-", "a..b", "x".repeat(254), "with space"]) {
      const st = await invalid(CMS, { metadata: { name } }, "metadata.name", `POST configmap ${JSON.stringify(name.slice(0, 20))}`);
      expect(st.details.name).toBe(name);
      expect(st.message).toContain(`ConfigMap "${name}" is invalid`);
      expect(st.details.causes[0].reason).toBe("FieldValueInvalid");
    }
  });

  test("a missing name", async () => {
    const st = await invalid(CMS, { metadata: { labels: { a: "b" } } }, "metadata.name", "POST configmap without name");
    expect(st.details.causes.find((c: any) => c.field === "metadata.name").reason).toBe("FieldValueRequired");
  });

  test("namespace names are DNS-1123 labels", async () => {
    await invalid("/api/v1/namespaces", { metadata: { name: "has.dot" } }, "metadata.name", "POST namespace has.dot", "Namespace");
    await invalid("/api/v1/namespaces", { metadata: { name: "x".repeat(64) } }, "metadata.name", "POST namespace of 64 chars", "Namespace");
  });

  test("service names are DNS-1035 labels", async () => {
    const svc = (name: string) => ({ metadata: { name }, spec: { ports: [{ port: 80 }] } });
    await invalid(`/api/v1/namespaces/${NS}/services`, svc("1st-service"), "metadata.name", "POST service 1st-service", "Service");
    await invalid(`/api/v1/namespaces/${NS}/services`, svc("has.dot"), "metadata.name", "POST service has.dot", "Service");
  });

  test("bad label keys and values", async () => {
    await invalid(CMS, { metadata: { name: "lbl1", labels: { "bad key": "v" } } }, "metadata.labels", "label key with a space");
    await invalid(CMS, { metadata: { name: "lbl2", labels: { "Bad_Prefix/x": "v" } } }, "metadata.labels", "label key with a bad prefix");
    await invalid(CMS, { metadata: { name: "lbl3", labels: { k: "v".repeat(64) } } }, "metadata.labels", "label value of 64 chars");
    await invalid(CMS, { metadata: { name: "lbl4", labels: { k: "-lead" } } }, "metadata.labels", "label value starting with -");
    await invalid(CMS, { metadata: { name: "ann1", annotations: { "bad key": "v" } } }, "metadata.annotations", "annotation key with a space");
    for (const n of ["lbl1", "lbl2", "lbl3", "lbl4", "ann1"]) expectStatus(await call("GET", `${CMS}/${n}`), 404, "NotFound", `GET ${n}`);
  });

  test("several problems give several causes", async () => {
    const st = await invalid(CMS, { metadata: { name: "Bad_Name", labels: { "bad key": "v" } } }, "metadata.name", "bad name and label");
    expect(st.details.causes.length).toBeGreaterThanOrEqual(2);
    expect(st.message).toMatch(/is invalid: \[/);
  });

  test("a pod without containers", async () => {
    await invalid(PODS, { metadata: { name: "nocontainers" }, spec: {} }, "spec.containers", "POST pod without containers", "Pod");
  });

  test("an invalid update is refused and changes nothing", async () => {
    const cur = (await call("GET", `${CMS}/keep-b`)).body;
    const bad = structuredClone(cur);
    bad.metadata.labels = { "bad key": "x" };
    expectStatus(await call("PUT", `${CMS}/keep-b`, bad), 422, "Invalid", "PUT bad label");
    const p = await call("PATCH", `${CMS}/keep-b`, { metadata: { labels: { k: "-bad" } } }, { "Content-Type": "application/merge-patch+json" });
    expectStatus(p, 422, "Invalid", "PATCH bad label value");
  });
});

describe("selectors", () => {
  const bad = [
    "a in (b", "a in b)", "=b", "a=b c", "!", "a,,b", "a b", "bad key=v", "k=-bad", "a notin", "(a)",
  ];
  for (const sel of bad) {
    test(`label selector ${JSON.stringify(sel)} → 400`, async () => {
      expectStatus(await call("GET", `${CMS}?labelSelector=${encodeURIComponent(sel)}`), 400, "BadRequest", `labelSelector=${sel}`);
    });
  }

  test("malformed field selectors → 400", async () => {
    for (const sel of ["metadata.name", "metadata.name>x", "=x"]) {
      expectStatus(await call("GET", `${CMS}?fieldSelector=${encodeURIComponent(sel)}`), 400, "BadRequest", `fieldSelector=${sel}`);
    }
  });

  test("unsupported field selectors → 400", async () => {
    const st = expectStatus(await call("GET", `${CMS}?fieldSelector=spec.foo%3Dbar`), 400, "BadRequest", "fieldSelector=spec.foo=bar");
    expect(st.message).toContain("spec.foo");
    expectStatus(await call("GET", `${CMS}?fieldSelector=spec.nodeName%3Dn1`), 400, "BadRequest", "configmaps fieldSelector=spec.nodeName");
    expectStatus(await call("GET", `/api/v1/configmaps?fieldSelector=status.phase%3DRunning`), 400, "BadRequest", "all configmaps fieldSelector=status.phase");
  });

  test("a bad selector on deletecollection → 400 and nothing is deleted", async () => {
    expectStatus(await call("DELETE", `${CMS}?labelSelector=${encodeURIComponent("a in (b")}`), 400, "BadRequest", "deletecollection bad selector");
    expectStatus(await call("DELETE", `${CMS}?fieldSelector=spec.x%3Dy`), 400, "BadRequest", "deletecollection unsupported field");
    expectCode(await call("GET", `${CMS}/keep-a`), 200, "keep-a still there");
  });
});

describe("unknown paths → 404", () => {
  const paths = [
    "/api/v1/foos",
    "/api/v1/namespaces/errs/foos",
    "/api/v2/pods",
    "/apis/nope.example.com/v1/things",
    "/apis/apps/v9/deployments",
    "/apis/apps/v1/widgets",
    `/apis/apps/v1/namespaces/${NS}/deployments/keep-deploy/bogus`,
    `/api/v1/namespaces/${NS}/configmaps/keep-a/status`,
    "/api/v1/configmaps/keep-a",
    "/api/v1/namespaces/errs/nodes/n1",
    "/nonexistent",
    "/apis/apps/v1/namespaces/errs/deployments/a/b/c/d",
  ];
  for (const p of paths) {
    test(`GET ${p}`, async () => {
      expectStatus(await call("GET", p), 404, "NotFound", `GET ${p}`);
    });
  }

  test("a missing object names itself in details", async () => {
    const st = expectStatus(await call("GET", `${CMS}/nope`), 404, "NotFound", "GET missing configmap");
    expect(st.details).toMatchObject({ name: "nope", kind: "configmaps" });
    expect(st.message).toBe(`configmaps "nope" not found`);
    const d = expectStatus(await call("GET", `/apis/apps/v1/namespaces/${NS}/deployments/nope`), 404, "NotFound", "GET missing deployment");
    expect(d.details).toMatchObject({ name: "nope", group: "apps", kind: "deployments" });
    expect(d.message).toBe(`deployments.apps "nope" not found`);
  });

  test("PUT, PATCH and DELETE of a missing object → 404", async () => {
    expectStatus(await call("PUT", `${CMS}/nope`, { metadata: { name: "nope" } }), 404, "NotFound", "PUT missing");
    expectStatus(await call("PATCH", `${CMS}/nope`, { data: {} }, { "Content-Type": "application/merge-patch+json" }), 404, "NotFound", "PATCH missing");
    expectStatus(await call("DELETE", `${CMS}/nope`), 404, "NotFound", "DELETE missing");
  });
});

describe("media types", () => {
  test("an unsupported Content-Type → 415", async () => {
    const body = JSON.stringify({ metadata: { name: "text" } });
    expectStatus(await raw("POST", CMS, body, { "Content-Type": "text/plain" }), 415, "UnsupportedMediaType", "POST text/plain");
    expectStatus(await raw("POST", CMS, body, { "Content-Type": "application/xml" }), 415, "UnsupportedMediaType", "POST application/xml");
    expectStatus(await raw("PUT", `${CMS}/keep-a`, body, { "Content-Type": "text/html" }), 415, "UnsupportedMediaType", "PUT text/html");
  });

  test("PATCH with a non-patch Content-Type → 415", async () => {
    const body = JSON.stringify({ data: { x: "y" } });
    expectStatus(await raw("PATCH", `${CMS}/keep-a`, body, JSON_CT), 415, "UnsupportedMediaType", "PATCH application/json");
    expectStatus(await raw("PATCH", `${CMS}/keep-a`, body, { "Content-Type": "text/plain" }), 415, "UnsupportedMediaType", "PATCH text/plain");
  });

  test("an Accept the server cannot serve → 406", async () => {
    for (const accept of ["application/xml", "text/html", "image/png"]) {
      expectStatus(await raw("GET", `${CMS}/keep-a`, undefined, { Accept: accept }), 406, "NotAcceptable", `GET Accept: ${accept}`);
    }
    expectStatus(await raw("GET", CMS, undefined, { Accept: "text/csv" }), 406, "NotAcceptable", "LIST Accept: text/csv");
  });

  test("an Accept list falls through to a type the server can serve", async () => {
    const r = await raw("GET", `${CMS}/keep-a`, undefined, { Accept: "application/xml, application/json" });
    expectCode(r, 200, "GET Accept xml, json");
    expect(r.body.metadata.name).toBe("keep-a");
  });

  test("a body over 3 MiB → 413", async () => {
    const body = JSON.stringify({ metadata: { name: "huge" }, data: { big: "x".repeat(3 * 1024 * 1024 + 1024) } });
    expectStatus(await raw("POST", CMS, body, JSON_CT), 413, "RequestEntityTooLarge", "POST 3 MiB + 1 KiB");
    const cur = (await call("GET", `${CMS}/keep-a`)).body;
    const big = JSON.stringify({ ...cur, data: { big: "y".repeat(3 * 1024 * 1024 + 1024) } });
    expectStatus(await raw("PUT", `${CMS}/keep-a`, big, JSON_CT), 413, "RequestEntityTooLarge", "PUT 3 MiB + 1 KiB");
    expectStatus(await call("GET", `${CMS}/huge`), 404, "NotFound", "GET huge");
  });
});

describe("methods", () => {
  test("POST to an item → 405", async () => {
    expectStatus(await call("POST", `${CMS}/keep-a`, { metadata: { name: "keep-a" } }), 405, "MethodNotAllowed", "POST item");
  });
  test("PUT to a collection → 405", async () => {
    expectStatus(await call("PUT", CMS, { metadata: { name: "x" } }), 405, "MethodNotAllowed", "PUT collection");
  });
  test("PATCH to a collection → 405", async () => {
    expectStatus(await call("PATCH", CMS, { data: {} }, { "Content-Type": "application/merge-patch+json" }), 405, "MethodNotAllowed", "PATCH collection");
  });
  test("POST and DELETE on a status subresource → 405", async () => {
    const dp = `/apis/apps/v1/namespaces/${NS}/deployments/keep-deploy/status`;
    expectStatus(await call("POST", dp, {}), 405, "MethodNotAllowed", "POST status");
    expectStatus(await call("DELETE", dp), 405, "MethodNotAllowed", "DELETE status");
  });
});

describe("odd input never breaks the server", () => {
  test("odd paths, parameters and bodies get a 4xx", async () => {
    const replies: [string, Reply][] = [
      ["bad percent escape in name", await call("GET", `${CMS}/%ZZ`)],
      ["bad percent escape in namespace", await call("GET", "/api/v1/namespaces/%E0%A4%A/configmaps")],
      ["limit=abc", await call("GET", `${CMS}?limit=abc`)],
      ["resourceVersion=abc on get", await call("GET", `${CMS}/keep-a?resourceVersion=abc`)],
      ["resourceVersion=abc on list", await call("GET", `${CMS}?resourceVersion=abc`)],
      ["resourceVersionMatch=Bogus", await call("GET", `${CMS}?resourceVersion=1&resourceVersionMatch=Bogus`)],
      ["garbage continue", await call("GET", `${CMS}?limit=1&continue=garbage!!`)],
      ["continue escaping the collection", await call("GET", `${CMS}?limit=1&continue=${Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: 1, start: "../../secrets/" })).toString("base64url")}`)],
      ["dryRun=Bogus", await call("POST", `${CMS}?dryRun=Bogus`, { metadata: { name: "dry" } })],
      ["PUT with resourceVersion abc", await call("PUT", `${CMS}/keep-a`, { metadata: { name: "keep-a", resourceVersion: "abc" } })],
      ["DELETE with a malformed body", await raw("DELETE", `${CMS}/keep-a`, `{"preconditions":`, JSON_CT)],
      ["DELETE with a list body", await raw("DELETE", `${CMS}/keep-a`, `[1,2]`, JSON_CT)],
      ["JSON patch that is not a list", await call("PATCH", `${CMS}/keep-a`, { op: "add" }, { "Content-Type": "application/json-patch+json" })],
      ["JSON patch with a bad op", await call("PATCH", `${CMS}/keep-a`, [{ op: "explode", path: "/data" }], { "Content-Type": "application/json-patch+json" })],
      ["JSON patch test that fails", await call("PATCH", `${CMS}/keep-a`, [{ op: "test", path: "/data/k", value: "other" }], { "Content-Type": "application/json-patch+json" })],
      ["strategic patch with a scalar", await raw("PATCH", `${CMS}/keep-a`, `5`, { "Content-Type": "application/strategic-merge-patch+json" })],
      ["merge patch changing the name", await call("PATCH", `${CMS}/keep-a`, { metadata: { name: "renamed" } }, { "Content-Type": "application/merge-patch+json" })],
      ["YAML alias bomb", await raw("POST", CMS, `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\nmetadata: {name: bomb}\n`, YAML_CT)],
      ["invalid UTF-8", await raw("POST", CMS, new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), JSON_CT)],
    ];
    const bad = replies.filter(([, r]) => r.status < 400 || r.status >= 500);
    if (bad.length) throw new Error(`expected 4xx for: ${bad.map(([w, r]) => `${w} → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`).join("\n")}`);
    for (const [what, r] of replies) {
      if (typeof r.body !== "object" || r.body?.kind !== "Status") throw new Error(`${what}: ${r.status} without a Status body: ${String(r.body).slice(0, 200)}`);
    }
  });

  test("deeply nested JSON → 400, not a crash", async () => {
    const depth = 100_000; // upstream's JSON decoder refuses more than 10,000 levels
    const body = `{"metadata":{"name":"deep"},"data":{},"x":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const r = await raw("POST", CMS, body, JSON_CT);
    expectStatus(r, 400, "BadRequest", "POST JSON nested 100,000 deep");
    expectCode(await call("GET", "/readyz"), 200, "readyz after deep JSON");
  });
});

describe("afterwards", () => {
  test("the server is healthy and the data is intact", async () => {
    expectCode(await call("GET", "/readyz"), 200, "readyz");
    for (const [path, obj] of before) {
      const r = await call("GET", path);
      expectCode(r, 200, `GET ${path}`);
      expect(r.body).toEqual(obj);
    }
    const l = await call("GET", `${CMS}?labelSelector=keep%3Dyes`);
    expectCode(l, 200, "LIST keep=yes");
    expect(l.body.items.map((o: any) => o.metadata.name).sort()).toEqual(["keep-a", "keep-b"]);
  });

  test("no reply in this file was a server error", () => {
    const errors = seen.filter((x) => x.status >= 500);
    expect(errors).toEqual([]);
    expect(seen.length).toBeGreaterThan(100);
  });
});
