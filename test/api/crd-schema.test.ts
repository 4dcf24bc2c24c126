// A CRD's schema at work on its objects: structural checks on the CRD (422 in upstream's words),
// validation of objects (ajv, upstream's paths and messages), defaults, pruning of undeclared fields
// (x-kubernetes-preserve-unknown-fields, -int-or-string, -embedded-resource), fieldValidation=Strict,
// and the list markers server-side apply merges by.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, until, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "crd-schema";
let s: TestServer;
useServer(NS, (x) => (s = x));

const G = "schema.example.com";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const base = `/apis/${G}/v1/namespaces/${NS}/gadgets`;

const crd = (schema: object, extra: object = {}) => ({
  apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition",
  metadata: { name: `gadgets.${G}` },
  spec: {
    group: G, scope: "Namespaced", names: { plural: "gadgets", kind: "Gadget", listKind: "GadgetCollection" },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    ...extra,
  },
});

const SCHEMA = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["size"],
      properties: {
        size: { type: "integer", minimum: 1, maximum: 10 },
        mode: { type: "string", enum: ["fast", "slow"], default: "slow" },
        name: { type: "string", pattern: "^[a-z]+$", maxLength: 8 },
        port: { "x-kubernetes-int-or-string": true },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        template: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object", properties: { a: { type: "string" } } } } },
        tags: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
        ports: { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } } },
        args: { type: "array", items: { type: "string" } },
      },
    },
  },
};

const gadget = (name: string, spec: object) => ({ apiVersion: `${G}/v1`, kind: "Gadget", metadata: { name }, spec });

beforeAll(async () => {
  expectCode(await s.call("POST", CRDS, crd(SCHEMA)), 201, "create the CRD");
  await until(async () => (await s.call("GET", base)).status === 200, "gadgets served");
});

describe("structural schemas", () => {
  const refused = async (schema: object, extra: object = {}) => {
    const bad = crd(schema, extra) as any;
    bad.metadata.name = `others.${G}`;
    bad.spec.names = { plural: "others", kind: "Other" };
    return expectStatus(await s.call("POST", CRDS, bad), 422, "Invalid", "a non-structural schema").message;
  };
  const at = "spec.versions[0].schema.openAPIV3Schema";

  test("types must be given, and be object at the root", async () => {
    expect(await refused({ type: "object", properties: { spec: { properties: { a: { type: "string" } } } } }))
      .toBe(`CustomResourceDefinition.apiextensions.k8s.io "others.${G}" is invalid: ${at}.properties[spec].type: Required value: must not be empty for specified object fields`);
    expect(await refused({ type: "string" })).toContain(`${at}.type: Invalid value: "string": must be object at the root`);
    expect(await refused({ type: "object", properties: { l: { type: "array" } } })).toContain(`${at}.properties[l].items: Required value: must be specified`);
  });

  test("markers are checked, and preserveUnknownFields is refused", async () => {
    expect(await refused({ type: "object", properties: { p: { type: "integer", "x-kubernetes-int-or-string": true } } }))
      .toContain(`${at}.properties[p].type: Invalid value: "integer": must be empty if x-kubernetes-int-or-string is true`);
    expect(await refused({ type: "object", properties: { l: { type: "array", items: { type: "object" }, "x-kubernetes-list-type": "map" } } }))
      .toContain(`${at}.properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`);
    expect(await refused({ type: "object" }, { preserveUnknownFields: true }))
      .toContain("spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead");
  });
});

describe("the Kubernetes groups", () => {
  const inGroup = (group: string, plural: string, kind: string, annotations?: object) => ({
    apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}`, ...(annotations ? { annotations } : {}) },
    spec: { group, scope: "Namespaced", names: { plural, kind }, versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }] },
  });

  test("need the API review's approval annotation", async () => {
    const st = expectStatus(await s.call("POST", CRDS, inGroup("things.k8s.io", "things", "Thing")), 422, "Invalid", "no approval");
    expect(st.message).toContain(`metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`);
  });

  test("a definition never replaces a built-in type", async () => {
    expectCode(await s.call("POST", CRDS, inGroup("networking.k8s.io", "ingresses", "Ingress", { "api-approved.kubernetes.io": "unapproved, testing" })), 201, "a CRD over ingresses");
    await until(async () => (await s.call("GET", `${CRDS}/ingresses.networking.k8s.io`)).body.status?.conditions, "its status");
    const ing = { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "i" }, spec: { bogus: 1 } };
    const c = await s.call("POST", `/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`, ing);
    // the built-in Ingress validation answers, not the CRD's open schema
    expectStatus(c, 422, "Invalid", "an Ingress without a backend or rules");
  });
});

describe("objects", () => {
  test("are validated with upstream's paths and messages", async () => {
    const msg = async (spec: object) => expectStatus(await s.call("POST", base, gadget("bad", spec)), 422, "Invalid", JSON.stringify(spec)).message as string;
    const prefix = `Gadget.${G} "bad" is invalid: `;
    expect(await msg({ size: "big" })).toBe(`${prefix}spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`);
    expect(await msg({ size: 11 })).toBe(`${prefix}spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`);
    expect(await msg({})).toBe(`${prefix}spec.size: Required value`);
    expect(await msg({ size: 1, mode: "medium" })).toBe(`${prefix}spec.mode: Unsupported value: "medium": supported values: "fast", "slow"`);
    expect(await msg({ size: 1, name: "A" })).toBe(`${prefix}spec.name: Invalid value: "A": spec.name in body should match '^[a-z]+$'`);
    expect(await msg({ size: 1, port: true })).toContain("spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\"");
    expect(await msg({ size: 1, ports: [{ port: 1 }] })).toBe(`${prefix}spec.ports[0].name: Required value`);
  });

  test("get defaults, and lose undeclared fields unless preserved", async () => {
    const c = await s.call("POST", base, gadget("g1", {
      size: 2, port: "http", extra: 1, free: { any: { thing: 1 } },
      template: { apiVersion: "v1", kind: "Pod", metadata: { name: "x" }, spec: { a: "b", c: "d" }, junk: 1 },
    }));
    expectCode(c, 201, "create");
    expect(c.body.spec).toEqual({
      size: 2, mode: "slow", port: "http", free: { any: { thing: 1 } },
      template: { apiVersion: "v1", kind: "Pod", metadata: { name: "x" }, spec: { a: "b" } },
    });
    expect((await s.call("GET", `${base}/g1`)).body.spec.extra).toBeUndefined();
    expect((await s.call("GET", base)).body.kind).toBe("GadgetCollection");
  });

  test("fieldValidation reports the pruned fields", async () => {
    const body = gadget("g2", { size: 2, extra: 1, template: { apiVersion: "v1", kind: "Pod", junk: 1 } }) as any;
    body.metadata.bogus = true;
    const strict = await s.call("POST", `${base}?fieldValidation=Strict`, body);
    expect(expectStatus(strict, 400, "BadRequest", "Strict").message)
      .toBe(`Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "metadata.bogus", unknown field "spec.extra", unknown field "spec.template.junk"`);
    const warn = await s.call("POST", `${base}?fieldValidation=Warn`, gadget("g2", { size: 2, extra: 1 }));
    expectCode(warn, 201, "Warn");
    expect(warn.headers.get("warning")).toContain(`unknown field \\"spec.extra\\"`);
  });

  test("server-side apply merges by the list markers; unmarked lists are atomic", async () => {
    const apply = (manager: string, spec: object) =>
      s.call("PATCH", `${base}/merged?fieldManager=${manager}`, gadget("merged", spec), { "Content-Type": "application/apply-patch+yaml" });
    expectCode(await apply("a", { size: 1, tags: ["x"], ports: [{ name: "http", port: 80 }], args: ["1"] }), 201, "first apply");
    const b = await apply("b", { size: 1, tags: ["y"], ports: [{ name: "https", port: 443 }] });
    expectCode(b, 200, "second apply");
    expect(b.body.spec.tags).toEqual(["x", "y"]);
    expect(b.body.spec.ports).toEqual([{ name: "http", port: 80 }, { name: "https", port: 443 }]);
    const c = await apply("c", { size: 1, args: ["2"] });
    expectStatus(c, 409, "Conflict", "an atomic list owned by another manager");
  });
});
