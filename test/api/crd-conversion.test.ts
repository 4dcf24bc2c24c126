// Custom resources at several versions through a conversion webhook (a real HTTPS server on loopback):
// reads, lists, watches, patches and writes at a version other than the storage version go through a
// ConversionReview (v1 and v1beta1); a failing or unreachable webhook answers upstream's 500 and ends only
// the watch that needed it. Then an apiextensions.k8s.io/v1beta1 CustomResourceDefinition, read at v1 and
// back, with its resources served.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { freePort, type TestServer } from "../helpers/server.ts";
import { startWebhookServer, type WebhookServer } from "../helpers/webhookserver.ts";
import { expectCode, openWatch, type Reply, until, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "crd-conversion";
let s: TestServer;
useServer(NS, (x) => (s = x));

const G = "conv.example.com";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const at = (version: string, plural: string, name = "") => `/apis/${G}/${version}/namespaces/${NS}/${plural}${name ? `/${name}` : ""}`;

/** Every review the webhook got, newest last. */
const reviews: any[] = [];
let hook: WebhookServer;

/** v1 keeps spec.color, v2 spec.paint.color; objects labelled fail=yes cannot be converted. */
function convertOne(o: any, to: string) {
  const { color, paint, ...rest } = o.spec ?? {};
  const spec = to.endsWith("/v2") ? { ...rest, paint: { color: color ?? paint?.color } } : { ...rest, color: paint?.color ?? color };
  return { ...o, apiVersion: to, spec };
}

async function convert(req: Request): Promise<Response> {
  const review = (await req.json()) as any;
  reviews.push(review);
  const { uid, desiredAPIVersion, objects } = review.request;
  const result = objects.some((o: any) => o.metadata?.labels?.fail === "yes")
    ? { status: "Failure", message: "this widget cannot be converted" }
    : { status: "Success" };
  const convertedObjects = result.status === "Success" ? objects.map((o: any) => convertOne(o, desiredAPIVersion)) : undefined;
  return Response.json({ apiVersion: review.apiVersion, kind: "ConversionReview", response: { uid, result, convertedObjects } });
}

const schema = (spec: object) => ({ openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: spec } } } });
const V1 = schema({ color: { type: "string" } });
const V2 = schema({ paint: { type: "object", properties: { color: { type: "string" } } } });

const crd = (plural: string, kind: string, webhook: object) => ({
  metadata: { name: `${plural}.${G}` },
  spec: {
    group: G, scope: "Namespaced", names: { plural, kind },
    versions: [{ name: "v1", served: true, storage: true, schema: V1 }, { name: "v2", served: true, storage: false, schema: V2 }],
    conversion: { strategy: "Webhook", webhook },
  },
});

const widget = (version: string, name: string, spec: object, labels: Record<string, string> = {}) =>
  ({ apiVersion: `${G}/${version}`, kind: "Widget", metadata: { name, labels }, spec });

let deadPort: number;

/** An error upstream could not type: a 500 Status without a reason (StatusReasonUnknown). */
function expectUnknown500(r: Reply, what: string): string {
  expectCode(r, 500, what);
  expect(r.body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code: 500 });
  expect(r.body.reason).toBeUndefined();
  return r.body.message;
}

beforeAll(async () => {
  hook = startWebhookServer("conversion", convert);
  deadPort = await freePort();
  for (const [plural, kind, webhook] of [
    ["widgets", "Widget", { conversionReviewVersions: ["v1"], clientConfig: hook.clientConfig("/convert") }],
    ["gizmos", "Gizmo", { conversionReviewVersions: ["v1beta1"], clientConfig: hook.clientConfig("/convert") }],
    ["relics", "Relic", { conversionReviewVersions: ["v1"], clientConfig: { url: `https://127.0.0.1:${deadPort}/convert`, caBundle: hook.caBundle } }],
  ] as const) {
    expectCode(await s.call("POST", CRDS, crd(plural, kind, webhook)), 201, `create ${plural}`);
  }
  for (const p of ["widgets", "gizmos", "relics"]) await until(async () => (await s.call("GET", at("v2", p))).status === 200, `${p} served at v2`);
});

afterAll(() => hook?.stop());

describe("conversion webhook", () => {
  test("a write at v2 is stored at v1 through the webhook, and reads back at either version", async () => {
    const before = reviews.length;
    expectCode(await s.call("POST", at("v2", "widgets"), widget("v2", "w1", { paint: { color: "red" } })), 201, "create at v2");
    const asked = reviews.slice(before);
    expect(asked.some((r) => r.apiVersion === "apiextensions.k8s.io/v1" && r.request.desiredAPIVersion === `${G}/v1` && r.request.objects[0].spec.paint.color === "red")).toBe(true);
    const v1 = await s.call("GET", at("v1", "widgets", "w1"));
    expect(v1.body.apiVersion).toBe(`${G}/v1`);
    expect(v1.body.spec).toEqual({ color: "red" });
    const v2 = await s.call("GET", at("v2", "widgets", "w1"));
    expect(v2.body.apiVersion).toBe(`${G}/v2`);
    expect(v2.body.spec).toEqual({ paint: { color: "red" } });
    // metadata is the server's, whatever the webhook says
    expect(v2.body.metadata.resourceVersion).toBe(v1.body.metadata.resourceVersion);
    expect(v2.body.metadata.uid).toBe(v1.body.metadata.uid);
  });

  test("a list at v2 converts its items in one review; a patch at v2 changes the stored v1 object", async () => {
    expectCode(await s.call("POST", at("v1", "widgets"), widget("v1", "w2", { color: "blue" })), 201, "create at v1");
    const before = reviews.length;
    const list = await s.call("GET", at("v2", "widgets"));
    expect(list.body.apiVersion).toBe(`${G}/v2`);
    expect(list.body.items.map((i: any) => [i.apiVersion, i.spec.paint.color])).toEqual([[`${G}/v2`, "red"], [`${G}/v2`, "blue"]]);
    expect(reviews.length - before).toBe(1);
    const patched = await s.call("PATCH", at("v2", "widgets", "w2"), { spec: { paint: { color: "green" } } }, { "Content-Type": "application/merge-patch+json" });
    expectCode(patched, 200, "patch at v2");
    expect(patched.body.spec).toEqual({ paint: { color: "green" } });
    expect((await s.call("GET", at("v1", "widgets", "w2"))).body.spec).toEqual({ color: "green" });
  });

  test("a watch at v2 sees writes made at v1, converted", async () => {
    const list = await s.call("GET", at("v2", "widgets"));
    const w = await openWatch(s, `${at("v2", "widgets")}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
    try {
      expectCode(await s.call("POST", at("v1", "widgets"), widget("v1", "w3", { color: "black" })), 201, "create at v1");
      const [ev] = await w.take(1, 10_000);
      expect(ev?.type).toBe("ADDED");
      expect(ev?.object.apiVersion).toBe(`${G}/v2`);
      expect(ev?.object.spec).toEqual({ paint: { color: "black" } });
    } finally { w.close(); }
  });

  test("a v1beta1 ConversionReview is sent when the webhook asks for it", async () => {
    const before = reviews.length;
    expectCode(await s.call("POST", at("v2", "gizmos"), { apiVersion: `${G}/v2`, kind: "Gizmo", metadata: { name: "g1" }, spec: { paint: { color: "gold" } } }), 201, "create a gizmo at v2");
    expect(reviews[before]?.apiVersion).toBe("apiextensions.k8s.io/v1beta1");
    expect((await s.call("GET", at("v1", "gizmos", "g1"))).body.spec).toEqual({ color: "gold" });
  });

  test("a webhook's failure is upstream's 500; the storage version still reads", async () => {
    expectCode(await s.call("POST", at("v1", "widgets"), widget("v1", "bad", { color: "grey" }, { fail: "yes" })), 201, "create at v1");
    expect(expectUnknown500(await s.call("GET", at("v2", "widgets", "bad")), "read at v2")).toBe(`conversion webhook for ${G}/v1, Kind=Widget failed: this widget cannot be converted`);
    expectUnknown500(await s.call("GET", at("v2", "widgets")), "list at v2");
    expect(expectUnknown500(await s.call("POST", at("v2", "widgets"), widget("v2", "bad2", { paint: { color: "x" } }, { fail: "yes" })), "create at v2"))
      .toBe(`conversion webhook for ${G}/v2, Kind=Widget failed: this widget cannot be converted`);
    expectCode(await s.call("GET", at("v1", "widgets", "bad")), 200, "read at v1");
  });

  test("an unreachable webhook is a 500 naming the refused connection; the server carries on", async () => {
    expectCode(await s.call("POST", at("v1", "relics"), { apiVersion: `${G}/v1`, kind: "Relic", metadata: { name: "r1" }, spec: { color: "white" } }), 201, "create at v1");
    expect(expectUnknown500(await s.call("GET", at("v2", "relics", "r1")), "read at v2")).toBe(`conversion webhook for ${G}/v1, Kind=Relic failed: Post "https://127.0.0.1:${deadPort}/convert?timeout=30s": dial tcp 127.0.0.1:${deadPort}: connect: connection refused`);
    expectCode(await s.call("GET", at("v1", "relics", "r1")), 200, "read at v1");
  });

  test("an event that cannot be converted ends that watch only", async () => {
    const rv = (await s.call("GET", at("v1", "widgets"))).body.metadata.resourceVersion;
    const v2 = await openWatch(s, `${at("v2", "widgets")}?watch=1&resourceVersion=${rv}`);
    const v1 = await openWatch(s, `${at("v1", "widgets")}?watch=1&resourceVersion=${rv}`);
    try {
      expectCode(await s.call("POST", at("v1", "widgets"), widget("v1", "bad3", { color: "grey" }, { fail: "yes" })), 201, "create at v1");
      const [err] = await v2.take(1, 10_000);
      expect(err?.type).toBe("ERROR");
      expect(err?.object.code).toBe(500);
      expect(err?.object.message).toContain("this widget cannot be converted");
      expect((await v1.take(1, 10_000))[0]?.object.metadata.name).toBe("bad3");
      expectCode(await s.call("POST", at("v1", "widgets"), widget("v1", "w4", { color: "pink" })), 201, "create at v1");
      expect((await v1.take(2, 10_000))[1]?.object.metadata.name).toBe("w4");
    } finally { v1.close(); v2.close(); }
  });

  test("after the storage version changes, objects stored at the old one read at every version (None and Webhook)", async () => {
    const none = { metadata: { name: `things.${G}` }, spec: { group: G, scope: "Namespaced", names: { plural: "things", kind: "Thing" },
      versions: [{ name: "v1", served: true, storage: true, schema: V1 }, { name: "v2", served: true, storage: false, schema: V1 }] } };
    const hooked = crd("sprockets", "Sprocket", { conversionReviewVersions: ["v1"], clientConfig: hook.clientConfig("/convert") });
    for (const def of [none, hooked]) expectCode(await s.call("POST", CRDS, def), 201, `create ${def.metadata.name}`);
    for (const p of ["things", "sprockets"]) await until(async () => (await s.call("GET", at("v1", p))).status === 200, `${p} served`);
    expectCode(await s.call("POST", at("v1", "things"), { ...widget("v1", "t1", { color: "teal" }), kind: "Thing" }), 201, "thing at v1");
    expectCode(await s.call("POST", at("v1", "sprockets"), { ...widget("v1", "s1", { color: "gold" }), kind: "Sprocket" }), 201, "sprocket at v1");
    for (const name of [none.metadata.name, hooked.metadata.name]) {
      const cur = (await s.call("GET", `${CRDS}/${name}`)).body;
      cur.spec.versions = cur.spec.versions.map((v: any) => ({ ...v, storage: v.name === "v2" }));
      expectCode(await s.call("PUT", `${CRDS}/${name}`, cur), 200, `storage v2 for ${name}`);
    }
    const read = async (version: string, plural: string, name: string) => until(async () => {
      const r = await s.call("GET", at(version, plural, name));
      return r.body.apiVersion === `${G}/${version}` ? r.body : undefined;
    }, `${plural}/${name} at ${version}`);
    expect((await read("v2", "things", "t1")).spec).toEqual({ color: "teal" });
    expect((await read("v1", "things", "t1")).spec).toEqual({ color: "teal" });
    expect((await read("v2", "sprockets", "s1")).spec).toEqual({ paint: { color: "gold" } });
    expect((await read("v1", "sprockets", "s1")).spec).toEqual({ color: "gold" });
    const patched = await s.call("PATCH", at("v2", "things", "t1"), { metadata: { labels: { seen: "yes" } } }, { "content-type": "application/merge-patch+json" });
    expectCode(patched, 200, "patch at the new storage version");
    expect(patched.body.apiVersion).toBe(`${G}/v2`);
  });
});
