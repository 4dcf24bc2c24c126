// apiextensions.k8s.io/v1beta1 CustomResourceDefinitions, served as v1.21 serves them: a definition in
// v1beta1's own shape (one top-level version, validation, subresources and printer columns with JSONPath)
// reads at v1 with those settings on each version, reads back at v1beta1 as written, and its custom
// resources are served (create, list, status, scale, Table with the printer columns).
import { describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, until, useServer } from "./fixtures.ts";

const NS = "crd-beta";
let s: TestServer;
useServer(NS, (x) => (s = x));

const G = "beta.example.com";
const NAME = `gizmos.${G}`;
const V1 = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const V1BETA1 = "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions";
const GIZMOS = `/apis/${G}/v1alpha1/namespaces/${NS}/gizmos`;

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
