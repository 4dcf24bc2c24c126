// CustomResourceDefinitions as upstream v1.21 takes them. apiextensions.k8s.io/v1beta1, served: a definition
// in v1beta1's own shape (one top-level version, validation, subresources and printer columns with JSONPath)
// reads at v1 with those settings on each version, reads back at v1beta1 as written, and its custom
// resources are served (create, list, status, scale, Table with the printer columns) — at an alpha version,
// which --runtime-config's default (alpha off) does not touch. And spec.conversion validated, table-driven:
// the strategy, the webhook's client config (exactly one of url and service; an https URL without user
// information, query or fragment, read as Go reads URLs; a service with name, namespace, port and path) and
// its review versions. Upstream reports the v1 webhook's parts at v1beta1's places
// (spec.conversion.webhookClientConfig, spec.conversion.conversionReviewVersions). And v1beta1's own shape,
// checked as written (the stored v1 form merges it): top-level settings beside per-version ones,
// per-version settings all identical, a `version` that is not the first of `versions`.
import { describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, until, useServer } from "./fixtures.ts";

let s: TestServer;
useServer("crd-defs", (x) => (s = x));

const G = "beta.example.com";
const NAME = `gizmos.${G}`;
const V1 = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const V1BETA1 = "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions";
const GIZMOS = `/apis/${G}/v1alpha1/namespaces/crd-defs/gizmos`;

const openAPIV3Schema = {
  type: "object",
  properties: {
    spec: { type: "object", properties: { size: { type: "integer", minimum: 1 }, color: { type: "string" } }, required: ["size"] },
    status: { type: "object", properties: { replicas: { type: "integer" } } },
  },
};
const subresources = { status: {}, scale: { specReplicasPath: ".spec.size", statusReplicasPath: ".status.replicas" } };

const definition = {
  apiVersion: "apiextensions.k8s.io/v1beta1", kind: "CustomResourceDefinition",
  metadata: { name: NAME },
  spec: {
    group: G, version: "v1alpha1", scope: "Namespaced",
    names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo", shortNames: ["gz"] },
    validation: { openAPIV3Schema },
    subresources,
    additionalPrinterColumns: [
      { name: "Size", type: "integer", JSONPath: ".spec.size" },
      { name: "Color", type: "string", JSONPath: ".spec.color", description: "the gizmo's color" },
    ],
  },
};

describe("a v1beta1 CustomResourceDefinition", () => {
  test("is created in v1beta1's shape and read at v1 with its settings on each version", async () => {
    const made = await s.call("POST", V1BETA1, definition);
    expectCode(made, 201, "create at v1beta1");
    expect(made.headers.get("warning")).toBe('299 - "apiextensions.k8s.io/v1beta1 CustomResourceDefinition is deprecated in v1.16+, unavailable in v1.22+; use apiextensions.k8s.io/v1 CustomResourceDefinition"');
    const v1 = await until(async () => {
      const r = await s.call("GET", `${V1}/${NAME}`);
      return (r.body.status?.conditions ?? []).some((c: any) => c.type === "Established" && c.status === "True") && r.body;
    }, "established");
    expect(v1.spec.versions).toEqual([{
      name: "v1alpha1", served: true, storage: true, schema: { openAPIV3Schema }, subresources,
      additionalPrinterColumns: [
        { name: "Size", type: "integer", jsonPath: ".spec.size" },
        { name: "Color", type: "string", jsonPath: ".spec.color", description: "the gizmo's color" },
      ],
    }]);
    // v1beta1's unset preserveUnknownFields means true, which v1 keeps
    expect(v1.spec.preserveUnknownFields).toBe(true);
    expect(v1.spec.conversion).toEqual({ strategy: "None" });
    expect(v1.spec).not.toHaveProperty("validation");
    expect(v1.status.storedVersions).toEqual(["v1alpha1"]);
  });

  test("reads back at v1beta1 as written", async () => {
    const r = await s.call("GET", `${V1BETA1}/${NAME}`);
    expectCode(r, 200, "get at v1beta1");
    expect(r.body.apiVersion).toBe("apiextensions.k8s.io/v1beta1");
    const { spec } = r.body;
    expect(spec.version).toBe("v1alpha1");
    expect(spec.validation).toEqual({ openAPIV3Schema });
    expect(spec.subresources).toEqual(subresources);
    expect(spec.additionalPrinterColumns).toEqual(definition.spec.additionalPrinterColumns);
    expect(spec.versions).toEqual([{ name: "v1alpha1", served: true, storage: true }]);
    expect(spec.preserveUnknownFields).toBe(true);
    const list = await s.call("GET", V1BETA1);
    expect(list.body.items.find((i: any) => i.metadata.name === NAME).spec.additionalPrinterColumns[0].JSONPath).toBe(".spec.size");
  });

  test("serves its custom resources: create, list, status, scale and Table with the printer columns", async () => {
    const gizmo = { apiVersion: `${G}/v1alpha1`, kind: "Gizmo", metadata: { name: "g1" }, spec: { size: 2, color: "red" } };
    const made = (await until(async () => {
      const r = await s.call("POST", GIZMOS, gizmo);
      return r.status === 201 ? r : null;
    }, "gizmos served"))!;
    expect(made.body.spec).toEqual({ size: 2, color: "red" });
    // the v1beta1 schema validates
    const bad = await s.call("POST", GIZMOS, { ...gizmo, metadata: { name: "g2" }, spec: { size: 0 } });
    expectCode(bad, 422, "size 0");
    expect(bad.body.message).toContain("spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1");
    const list = await s.call("GET", GIZMOS);
    expect(list.body.items.map((i: any) => i.metadata.name)).toEqual(["g1"]);
    const table = await s.call("GET", GIZMOS, undefined, { Accept: "application/json;as=Table;g=meta.k8s.io;v=v1" });
    expectCode(table, 200, "Table");
    expect(table.body.columnDefinitions.map((c: any) => [c.name, c.type])).toEqual([["Name", "string"], ["Size", "integer"], ["Color", "string"]]);
    expect(table.body.rows[0].cells.slice(0, 3)).toEqual(["g1", 2, "red"]);
    const status = await s.call("PUT", `${GIZMOS}/g1/status`, { ...made.body, status: { replicas: 2 } });
    expectCode(status, 200, "status");
    const scale = await s.call("GET", `${GIZMOS}/g1/scale`);
    expectCode(scale, 200, "scale");
    expect([scale.body.spec.replicas, scale.body.status.replicas]).toEqual([2, 2]);
  });

  test("an update at v1beta1 keeps what v1beta1 cannot say per version", async () => {
    const got = (await s.call("GET", `${V1BETA1}/${NAME}`)).body;
    const put = await s.call("PUT", `${V1BETA1}/${NAME}`, { ...got, spec: { ...got.spec, names: { ...got.spec.names, categories: ["toys"] } } });
    expectCode(put, 200, "update at v1beta1");
    const v1 = (await s.call("GET", `${V1}/${NAME}`)).body;
    expect(v1.spec.names.categories).toEqual(["toys"]);
    expect(v1.spec.versions[0].additionalPrinterColumns.map((c: any) => c.jsonPath)).toEqual([".spec.size", ".spec.color"]);
  });
});

const R = "FieldValueRequired", I = "FieldValueInvalid", NS_ = "FieldValueNotSupported", F = "FieldValueForbidden";
const CC = "spec.conversion.webhookClientConfig";
const FORM = "; desired format: https://host[/path]";
const CA = Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64");

const schema = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };
/** A valid v1 definition with two versions, named after `plural`, converted as `conversion` says. */
const withConversion = (plural: string, conversion: unknown) => ({
  apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.conv.example.com` },
  spec: {
    group: "conv.example.com", scope: "Namespaced", names: { plural, kind: plural[0].toUpperCase() + plural.slice(1, -1) },
    versions: [{ name: "v1", served: true, storage: true, schema }, { name: "v2", served: true, storage: false, schema }],
    conversion,
  },
});
const byURL = (url: string, versions: unknown = ["v1"]) => ({ strategy: "Webhook", webhook: { clientConfig: { url }, conversionReviewVersions: versions } });
const byService = (service: object, versions: unknown = ["v1"]) => ({ strategy: "Webhook", webhook: { clientConfig: { service }, conversionReviewVersions: versions } });
const svc = { name: "converter", namespace: "default" };

/** A conversion upstream refuses, and the cause it gives. */
type Bad = [label: string, conversion: unknown, field: string, reason: string, words: string];
const BAD: Bad[] = [
  ["strategy Magic", { strategy: "Magic" }, "spec.conversion.strategy", NS_, `Unsupported value: "Magic": supported values: "None", "Webhook"`],
  ["no strategy", {}, "spec.conversion.strategy", R, "Required value"],
  ["Webhook without a webhook", { strategy: "Webhook" }, CC, R, "Required value: required when strategy is set to Webhook"],
  ["Webhook without review versions", { strategy: "Webhook", webhook: { clientConfig: { url: "https://c.example.com/" } } }, "spec.conversion.conversionReviewVersions", R, "Required value"],
  ["neither url nor service", { strategy: "Webhook", webhook: { clientConfig: {}, conversionReviewVersions: ["v1"] } }, CC, R, "Required value: exactly one of url or service is required"],
  ["both url and service", { strategy: "Webhook", webhook: { clientConfig: { url: "https://c.example.com/", service: svc }, conversionReviewVersions: ["v1"] } }, CC, R, "exactly one of url or service is required"],
  ["an http URL", byURL("http://c.example.com/convert"), `${CC}.url`, I, `Invalid value: "http": 'https' is the only allowed URL scheme${FORM}`],
  ["a URL without a host", byURL("https:///convert"), `${CC}.url`, I, `Invalid value: "": host must be provided${FORM}`],
  ["a URL with user information", byURL("https://me:secret@c.example.com/"), `${CC}.url`, I, `Invalid value: "me:secret": user information is not permitted in the URL`],
  ["a URL with a fragment", byURL("https://c.example.com/convert#part"), `${CC}.url`, I, `Invalid value: "part": fragments are not permitted in the URL`],
  ["a URL with a query", byURL("https://c.example.com/convert?debug=1"), `${CC}.url`, I, `Invalid value: "debug=1": query parameters are not permitted in the URL`],
  ["a URL Go cannot parse", byURL("https://c.example.com:http/"), `${CC}.url`, R, `Required value: url must be a valid URL: parse "https://c.example.com:http/": invalid port ":http" after host${FORM}`],
  ["a URL without a scheme", byURL("://c.example.com"), `${CC}.url`, R, `url must be a valid URL: parse "://c.example.com": missing protocol scheme${FORM}`],
  ["a service without a name", byService({ namespace: "default" }), `${CC}.service.name`, R, "Required value: service name is required"],
  ["a service without a namespace", byService({ name: "converter" }), `${CC}.service.namespace`, R, "Required value: service namespace is required"],
  ["a service port 70000", byService({ ...svc, port: 70000 }), `${CC}.service.port`, I, "Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive"],
  ["a relative service path", byService({ ...svc, path: "convert" }), `${CC}.service.path`, I, `Invalid value: "convert": must start with a '/'`],
  ["an empty path segment", byService({ ...svc, path: "/a//b" }), `${CC}.service.path`, I, `Invalid value: "/a//b": segment[1] may not be empty`],
  ["a path segment not a subdomain", byService({ ...svc, path: "/Convert" }), `${CC}.service.path`, I, `Invalid value: "/Convert": segment[0]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters`],
  ["no review version the server speaks", byURL("https://c.example.com/", ["v2"]), "spec.conversion.conversionReviewVersions", I, `Invalid value: []string{"v2"}: must include at least one of v1, v1beta1`],
  ["a review version twice", byURL("https://c.example.com/", ["v1", "v1"]), "spec.conversion.conversionReviewVersions[1]", I, `Invalid value: "v1": duplicate version`],
  ["a review version not a DNS label", byURL("https://c.example.com/", ["V1", "v1"]), "spec.conversion.conversionReviewVersions[0]", I, `Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-'`],
  ["None with a client config", { strategy: "None", webhook: { clientConfig: { url: "https://c.example.com/" } } }, CC, F, "Forbidden: should not be set when strategy is not set to Webhook"],
  ["None with review versions", { strategy: "None", webhook: { conversionReviewVersions: ["v1"] } }, "spec.conversion.conversionReviewVersions", F, "Forbidden: should not be set when strategy is not set to Webhook"],
];

/** Conversions upstream accepts. */
const GOOD: [label: string, conversion: unknown][] = [
  ["None", { strategy: "None" }],
  ["a URL with a path and a CA bundle", { strategy: "Webhook", webhook: { clientConfig: { url: "https://c.example.com:8443/convert", caBundle: CA }, conversionReviewVersions: ["v1", "v1beta1"] } }],
  ["a service with port and path", byService({ ...svc, port: 8443, path: "/convert/crds" }, ["v2", "v1beta1"])],
  ["a service with no port (443)", byService({ ...svc, path: "/" })],
];

const plural = (label: string) => `${label.toLowerCase().replace(/[^a-z]/g, "")}s`.slice(0, 40);

describe("spec.conversion of a v1 definition", () => {
  for (const [label, conversion, field, reason, words] of BAD) {
    test(`${label}: ${field} ${reason}`, async () => {
      const r = await s.call("POST", V1, withConversion(plural(label), conversion));
      const st = expectStatus(r, 422, "Invalid", label);
      const cause = st.details.causes.find((c: any) => c.field === field && c.reason === reason && c.message.includes(words));
      if (!cause) throw new Error(`${label}: no ${reason} cause at ${field} saying ${JSON.stringify(words)}: ${JSON.stringify(st.details.causes)}`);
      expect(st.message).toContain(`${field}: ${cause.message}`);
    });
  }

  for (const [label, conversion] of GOOD) {
    test(`${label} is accepted`, async () => {
      expectCode(await s.call("POST", V1, withConversion(plural(label), conversion)), 201, label);
    });
  }
});

describe("spec.conversion of a v1beta1 definition", () => {
  const beta = (name: string, spec: object) => ({
    apiVersion: "apiextensions.k8s.io/v1beta1", kind: "CustomResourceDefinition", metadata: { name: `${name}.conv.example.com` },
    spec: {
      group: "conv.example.com", scope: "Namespaced", names: { plural: name, kind: "Beta" + name.slice(0, -1) },
      versions: [{ name: "v1", served: true, storage: true }, { name: "v2", served: true, storage: false }],
      validation: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object" } } } }, ...spec,
    },
  });
  const webhook = { strategy: "Webhook", webhookClientConfig: { url: "https://c.example.com/convert" } };

  test("a webhook needs pruning: unset preserveUnknownFields is true at v1beta1", async () => {
    const r = await s.call("POST", V1BETA1, beta("prunings", { conversion: webhook }));
    const st = expectStatus(r, 422, "Invalid", "webhook with preserveUnknownFields unset");
    expect(st.details.causes).toContainEqual({ field: "spec.conversion.strategy", reason: I, message: `Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true` });
  });

  test("the v1beta1 shape is checked at the same places, and a valid one reads at v1 with review versions [v1beta1]", async () => {
    const bad = await s.call("POST", V1BETA1, beta("badhooks", { preserveUnknownFields: false, conversion: { ...webhook, webhookClientConfig: { url: "http://c.example.com/" } } }));
    const st = expectStatus(bad, 422, "Invalid", "http at v1beta1");
    expect(st.details.causes).toContainEqual({ field: `${CC}.url`, reason: I, message: `Invalid value: "http": 'https' is the only allowed URL scheme${FORM}` });
    const good = await s.call("POST", V1BETA1, beta("goodhooks", { preserveUnknownFields: false, conversion: webhook }));
    expectCode(good, 201, "valid webhook at v1beta1");
    const v1 = await s.call("GET", `${V1}/goodhooks.conv.example.com`);
    expect(v1.body.spec.conversion).toEqual({ strategy: "Webhook", webhook: { clientConfig: { url: "https://c.example.com/convert" }, conversionReviewVersions: ["v1beta1"] } });
  });

  const sch = { openAPIV3Schema: { type: "object" } };
  const cols = [{ name: "Size", type: "integer", JSONPath: ".spec.size" }];
  /** [label, spec over beta()'s, field, reason, message] */
  const SHAPES: [string, object, string, string, string][] = [
    ["schema at both levels", { versions: [{ name: "v1", served: true, storage: true, schema: sch }] }, "spec.validation", F, "Forbidden: top-level and per-version schemas are mutually exclusive"],
    ["subresources at both levels", { subresources: { status: {} }, versions: [{ name: "v1", served: true, storage: true, subresources: { status: {} } }, { name: "v2", served: true, storage: false }] }, "spec.subresources", F, "top-level and per-version subresources are mutually exclusive"],
    ["identical schemas", { validation: undefined, versions: [{ name: "v1", served: true, storage: true, schema: sch }, { name: "v2", served: true, storage: false, schema: sch }] }, "spec.versions", I, "per-version schemas may not all be set to identical values (top-level validation should be used instead)"],
    ["identical columns", { additionalPrinterColumns: undefined, versions: [{ name: "v1", served: true, storage: true, additionalPrinterColumns: cols }, { name: "v2", served: true, storage: false, additionalPrinterColumns: cols }] }, "spec.versions", I, "per-version additionalPrinterColumns may not all be set to identical values (top-level additionalPrinterColumns should be used instead)"],
    ["version not the first", { version: "v2" }, "spec.version", I, `Invalid value: "v2": must match the first version in spec.versions`],
  ];
  for (const [label, spec, field, reason, words] of SHAPES) {
    test(`${label}: ${field} ${reason}`, async () => {
      const st = expectStatus(await s.call("POST", V1BETA1, beta(plural(label), spec)), 422, "Invalid", label);
      expect(st.details.causes.some((c: any) => c.field === field && c.reason === reason && c.message.includes(words)), JSON.stringify(st.details.causes)).toBe(true);
    });
  }

  test("v1beta1 still takes a definition without a schema, which v1 refuses", async () => {
    const { validation: _v, ...spec } = beta("schemaless", {}).spec;
    expectCode(await s.call("POST", V1BETA1, { ...beta("schemaless", {}), spec }), 201, "no schema at v1beta1");
  });
});
