// matchPolicy Equivalent against a real HTTPS webhook on loopback: a webhook registered for
// networking.k8s.io/v1 ingresses is called for a write at extensions/v1beta1 with the object converted to
// v1 (kind v1, requestKind v1beta1), and its patch comes back to the v1beta1 object; an Exact one is not.
// The same for a custom resource's two versions, converted by its conversion webhook (v1 spec.color, v2
// spec.paint.color).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { type WebhookServer, startWebhookServer } from "../helpers/webhookserver.ts";
import { expectCode, until, useServer } from "./fixtures.ts";

const NS = "webhook-equivalent";
let s: TestServer;
useServer(NS, (started) => (s = started));

const seen: { path: string; request: any }[] = [];
let hook: WebhookServer;
const patchOf = (ops: unknown[]) => Buffer.from(JSON.stringify(ops)).toString("base64");

const PATCHES: Record<string, unknown[]> = {
  // v1 paths: the port of the first rule's backend, and a label
  "/equivalent": [
    { op: "add", path: "/metadata/labels", value: { equivalent: "yes" } },
    { op: "replace", path: "/spec/rules/0/http/paths/0/backend/service/port/number", value: 8080 },
  ],
  "/exact": [{ op: "add", path: "/metadata/annotations", value: { exact: "yes" } }],
  // a v1 path: the color a v2 client sees as paint.color
  "/widget": [{ op: "replace", path: "/spec/color", value: "blue" }],
};

/** The CRD's conversion webhook: v1 spec.color ↔ v2 spec.paint.color. */
function convert(review: any): Response {
  const { uid, desiredAPIVersion, objects } = review.request;
  const convertedObjects = objects.map((o: any) => {
    const { color, paint, ...rest } = o.spec ?? {};
    const c = color ?? paint?.color;
    return { ...o, apiVersion: desiredAPIVersion, spec: { ...rest, ...(desiredAPIVersion.endsWith("/v2") ? { paint: { color: c } } : { color: c }) } };
  });
  return Response.json({ apiVersion: review.apiVersion, kind: "ConversionReview", response: { uid, result: { status: "Success" }, convertedObjects } });
}
const G = "equiv.example.com";
const schema = (spec: object) => ({ openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: spec } } } });
const widgets = {
  metadata: { name: `widgets.${G}` },
  spec: {
    group: G, scope: "Namespaced", names: { plural: "widgets", singular: "widget", kind: "Widget" },
    versions: [
      { name: "v1", served: true, storage: true, schema: schema({ color: { type: "string" } }) },
      { name: "v2", served: true, storage: false, schema: schema({ paint: { type: "object", properties: { color: { type: "string" } } } }) },
    ],
  },
};

beforeAll(async () => {
  hook = startWebhookServer("equivalent", async (req) => {
    const path = new URL(req.url).pathname;
    const review = (await req.json()) as any;
    if (path === "/convert") return convert(review);
    seen.push({ path, request: review.request });
    return Response.json({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true, patchType: "JSONPatch", patch: patchOf(PATCHES[path]) } });
  });
  const webhook = (name: string, path: string, extra: object = {}) => ({
    name, sideEffects: "None", admissionReviewVersions: ["v1"],
    clientConfig: hook.clientConfig(path),
    rules: [{ operations: ["CREATE"], apiGroups: ["networking.k8s.io"], apiVersions: ["v1"], resources: ["ingresses"] }],
    ...extra,
  });
  expectCode(await s.call("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {
    metadata: { name: "ingress-hooks" },
    // matchPolicy is left to v1's default, Equivalent, on the first
    webhooks: [
      webhook("equivalent.example.com", "/equivalent"), webhook("exact.example.com", "/exact", { matchPolicy: "Exact" }),
      webhook("widget.example.com", "/widget", { rules: [{ operations: ["CREATE"], apiGroups: [G], apiVersions: ["v1"], resources: ["widgets"] }] }),
    ],
  }), 201, "create the mutating configuration");
  const conversion = { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig: hook.clientConfig("/convert") } };
  expectCode(await s.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { ...widgets, spec: { ...widgets.spec, conversion } }), 201, "create the CRD");
  await until(async () => (await s.call("GET", `/apis/${G}/v2/namespaces/${NS}/widgets`)).status === 200, "widgets served at v2");
});

afterAll(() => hook?.stop());

const v1beta1Ingress = (name: string) => ({
  apiVersion: "extensions/v1beta1", kind: "Ingress", metadata: { name },
  spec: { rules: [{ host: "example.com", http: { paths: [{ path: "/", backend: { serviceName: "web", servicePort: 80 } }] } }] },
});

describe("matchPolicy", () => {
  test("Equivalent: a write at extensions/v1beta1 reaches a v1 webhook converted, and its patch comes back", async () => {
    seen.length = 0;
    const r = await s.call("POST", `/apis/extensions/v1beta1/namespaces/${NS}/ingresses`, v1beta1Ingress("old-style"));
    expectCode(r, 201, "create an extensions/v1beta1 Ingress");
    expect(r.body.apiVersion).toBe("extensions/v1beta1");
    expect(r.body.metadata.labels).toEqual({ equivalent: "yes" });
    expect(r.body.spec.rules[0].http.paths[0].backend).toEqual({ serviceName: "web", servicePort: 8080 });
    // the Exact webhook was not called
    expect(r.body.metadata.annotations?.exact).toBeUndefined();
    expect(seen.map((x) => x.path)).toEqual(["/equivalent"]);
    const req = seen[0].request;
    expect(req.kind).toEqual({ group: "networking.k8s.io", version: "v1", kind: "Ingress" });
    expect(req.resource).toEqual({ group: "networking.k8s.io", version: "v1", resource: "ingresses" });
    expect(req.requestKind).toEqual({ group: "extensions", version: "v1beta1", kind: "Ingress" });
    expect(req.requestResource).toEqual({ group: "extensions", version: "v1beta1", resource: "ingresses" });
    expect(req.object.apiVersion).toBe("networking.k8s.io/v1");
    expect(req.object.spec.rules[0].http.paths[0].backend).toEqual({ service: { name: "web", port: { number: 80 } } });
    // read at v1, the patched port is stored
    const v1 = await s.call("GET", `/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses/old-style`);
    expect(v1.body.spec.rules[0].http.paths[0].backend.service.port.number).toBe(8080);
  });

  test("a write at v1 itself calls both, with kind and requestKind the same", async () => {
    seen.length = 0;
    const body = {
      apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "new-style" },
      spec: { rules: [{ host: "example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] } }] },
    };
    const r = await s.call("POST", `/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`, body);
    expectCode(r, 201, "create a v1 Ingress");
    expect(r.body.metadata.annotations).toEqual({ exact: "yes" });
    expect(seen.map((x) => x.path).sort()).toEqual(["/equivalent", "/exact"]);
    expect(seen[0].request.requestKind).toEqual(seen[0].request.kind);
  });

  test("Equivalent: a custom resource written at v2 reaches a webhook registered for v1, through its conversion webhook", async () => {
    seen.length = 0;
    const r = await s.call("POST", `/apis/${G}/v2/namespaces/${NS}/widgets`, { apiVersion: `${G}/v2`, kind: "Widget", metadata: { name: "w" }, spec: { paint: { color: "red" } } });
    expectCode(r, 201, "create a v2 Widget");
    expect(r.body.apiVersion).toBe(`${G}/v2`);
    expect(r.body.spec).toEqual({ paint: { color: "blue" } });
    expect(seen.map((x) => x.path)).toEqual(["/widget"]);
    const req = seen[0].request;
    expect([req.kind, req.requestKind]).toEqual([{ group: G, version: "v1", kind: "Widget" }, { group: G, version: "v2", kind: "Widget" }]);
    expect([req.object.apiVersion, req.object.spec]).toEqual([`${G}/v1`, { color: "red" }]);
  });
});
