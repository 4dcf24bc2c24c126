// What a CustomResourceDefinition may not hold, beyond its structural schema: `default`s that fail their
// own schema, would be pruned, or sit where upstream forbids them, and printer columns with an unknown
// type or format or a JSONPath that is not a simple path. Each is a 422 in upstream's words, on create
// and on update; a definition with sound defaults and columns is stored and applies its defaults.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, until, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "crd-validation";
let s: TestServer;
useServer(NS, (x) => (s = x));

const G = "checks.example.com";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const AT = "spec.versions[0].schema.openAPIV3Schema";
const COL = "spec.versions[0].additionalPrinterColumns[0]";

const crd = (plural: string, spec: object, extra: { columns?: object[]; preserveUnknownFields?: boolean } = {}) => ({
  apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.${G}` },
  spec: {
    group: G, scope: "Namespaced", names: { plural, kind: plural[0].toUpperCase() + plural.slice(1, -1) },
    ...(extra.preserveUnknownFields ? { preserveUnknownFields: true } : {}),
    versions: [{
      name: "v1", served: true, storage: true, additionalPrinterColumns: extra.columns,
      schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
    }],
  },
});
const specWith = (props: object) => ({ type: "object", properties: props });

/** [what, spec schema, extra, the cause upstream gives] */
const REFUSED: [string, object, object, string][] = [
  ["a default of the wrong type", specWith({ size: { type: "integer", default: "big" } }), {},
    `${AT}.properties[spec].properties[size].default: Invalid value: "string":  in body must be of type integer: "string"`],
  ["a default outside the enum", specWith({ mode: { type: "string", enum: ["fast", "slow"], default: "medium" } }), {},
    `${AT}.properties[spec].properties[mode].default: Unsupported value: "medium": supported values: "fast", "slow"`],
  ["a default below the minimum", specWith({ size: { type: "integer", minimum: 1, default: 0 } }), {},
    `${AT}.properties[spec].properties[size].default: Invalid value: 0:  in body should be greater than or equal to 1`],
  ["a default whose field fails its pattern", { ...specWith({ name: { type: "string", pattern: "^[a-z]+$" } }), default: { name: "UP" } }, {},
    `${AT}.properties[spec].default.name: Invalid value: "UP": name in body should match '^[a-z]+$'`],
  ["a default with fields the schema would prune", { ...specWith({ a: { type: "string" } }), default: { a: "x", b: "y" } }, {},
    `${AT}.properties[spec].default: Invalid value: map[string]interface {}{"a":"x", "b":"y"}: must not have unknown fields`],
  ["a default in an embedded resource's metadata map",
    specWith({ tpl: { type: "object", "x-kubernetes-embedded-resource": true, properties: { metadata: { type: "object", properties: {
      labels: { type: "object", additionalProperties: { type: "string", default: "x" } } } } } } }), {},
    `${AT}.properties[spec].properties[tpl].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`],
  ["defaults with preserveUnknownFields", specWith({ size: { type: "integer", default: 1 } }), { preserveUnknownFields: true },
    "spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema"],
  ["a column of an unknown type", specWith({}), { columns: [{ name: "A", type: "text", jsonPath: ".spec.a" }] },
    `${COL}.type: Invalid value: "text": must be one of boolean,date,integer,number,string`],
  ["a column of an unknown format", specWith({}), { columns: [{ name: "A", type: "integer", format: "uint", jsonPath: ".spec.a" }] },
    `${COL}.format: Invalid value: "uint": must be one of byte,date,date-time,double,float,int32,int64,password`],
  ["a column path in braces", specWith({}), { columns: [{ name: "A", type: "string", jsonPath: "{.spec.a}" }] },
    `${COL}.JSONPath: Invalid value: "{.spec.a}": must be a simple json path starting with .`],
];

describe("a CustomResourceDefinition is refused for", () => {
  for (const [what, spec, extra, cause] of REFUSED) {
    test(what, async () => {
      const st = expectStatus(await s.call("POST", CRDS, crd("bads", spec, extra)), 422, "Invalid", what);
      expect(st.message).toContain(cause);
    });
  }

  test("a default in the resource's own metadata", async () => {
    const bad = crd("bads", specWith({})) as any;
    bad.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: "object", properties: { name: { type: "string", default: "n" } } };
    const st = expectStatus(await s.call("POST", CRDS, bad), 422, "Invalid", "a metadata default");
    expect(st.message).toContain(`${AT}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`);
  });
});

describe("sound defaults and columns", () => {
  const GOOD = specWith({
    size: { type: "integer", minimum: 1, default: 3 },
    mode: { type: "string", enum: ["fast", "slow"], default: "slow" },
    free: { type: "object", "x-kubernetes-preserve-unknown-fields": true, default: { any: { thing: 1 } } },
    opts: { type: "object", properties: { a: { type: "string" } }, default: { a: "x" } },
  });
  const COLUMNS = [{ name: "Size", type: "integer", format: "int32", jsonPath: ".spec.size" }, { name: "Mode", type: "string", jsonPath: ".spec.mode" }];

  test("are stored and applied, and an update to a bad default is refused", async () => {
    expectCode(await s.call("POST", CRDS, crd("goods", GOOD, { columns: COLUMNS })), 201, "a sound CRD");
    const base = `/apis/${G}/v1/namespaces/${NS}/goods`;
    await until(async () => (await s.call("GET", base)).status === 200, "goods served");
    const made = await s.call("POST", base, { apiVersion: `${G}/v1`, kind: "Good", metadata: { name: "g" }, spec: {} });
    expectCode(made, 201, "a good");
    expect(made.body.spec).toEqual({ size: 3, mode: "slow", free: { any: { thing: 1 } }, opts: { a: "x" } });
    const table = await s.call("GET", base, undefined, { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expect(table.body.rows?.[0]?.cells?.slice(1, 3)).toEqual([3, "slow"]);

    const stored = (await s.call("GET", `${CRDS}/goods.${G}`)).body;
    stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.default = 0;
    const st = expectStatus(await s.call("PUT", `${CRDS}/goods.${G}`, stored), 422, "Invalid", "an update to a bad default");
    expect(st.message).toContain(`${AT}.properties[spec].properties[size].default: Invalid value: 0:  in body should be greater than or equal to 1`);
  });
});
