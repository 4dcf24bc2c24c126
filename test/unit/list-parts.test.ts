// A list sent in parts (pkg/api/handlers/listparts.ts) is byte for byte the list encoded whole, in every
// representation; and the slicer (stream.ts) answers small bodies whole, streams large ones, and gives the
// event loop a turn between slices.
import { expect, test } from "bun:test";
import { listParts } from "../../pkg/api/handlers/listparts.ts";
import { encodeSliced, type Part } from "../../pkg/api/handlers/stream.ts";
import { type Representation, toYAML } from "../../pkg/api/negotiate.ts";
import { encodeObject } from "../../pkg/protobuf/index.ts";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import { tableFor } from "../../pkg/table/index.ts";
import { bigConfigMap } from "../helpers/large-list.ts";

const configMap = (i: number, kb = 0) => ({
  apiVersion: "v1", kind: "ConfigMap",
  ...(kb ? bigConfigMap(i, kb) : { metadata: { name: `c${i}` }, data: { yes: "no", on: "2021-01-01", multi: "a\nb: c\n- d\n", empty: "", quote: "'\"", n: "012" } }),
  metadata: { name: `c${i}`, namespace: "default", uid: `u-${i}`, resourceVersion: String(10 + i), creationTimestamp: "2024-05-01T10:00:00Z", annotations: { long: "x ".repeat(200) } },
});

const list = (items: object[]) => ({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "42", continue: "tok" }, items });
const LISTS = [list([]), list([configMap(1)]), list(Array.from({ length: 20 }, (_, i) => configMap(i, i % 4 ? 0 : 20)))];

const REP = {
  json: { format: "json" },
  yaml: { format: "yaml" },
  protobuf: { format: "protobuf", type: "application/vnd.kubernetes.protobuf" },
  table: { format: "json", as: "Table", group: "meta.k8s.io", version: "v1" },
} satisfies Record<string, Representation>;

const joined = (parts: Iterator<Part>) => {
  const all = [...{ [Symbol.iterator]: () => parts }];
  return typeof all[0] === "string" ? all.join("") : Buffer.concat(all as Uint8Array[]);
};

const text = (b: string | Uint8Array) => (typeof b === "string" ? b : new TextDecoder().decode(b));

test("JSON parts joined are JSON.stringify of the list", () => {
  // the items' parts are their remembered UTF-8 bytes
  for (const l of LISTS) expect(text(joined(listParts(REP.json, l)!))).toBe(JSON.stringify(l));
});

test("YAML parts joined are toYAML of the list", () => {
  for (const l of LISTS) expect(joined(listParts(REP.yaml, l)!)).toBe(toYAML(l));
});

test("protobuf parts joined are the list's envelope", () => {
  for (const l of LISTS) expect(Buffer.compare(joined(listParts(REP.protobuf, l)!) as Uint8Array, encodeObject(l))).toBe(0);
});

test("a Table's rows in parts joined are JSON.stringify of the Table", () => {
  const def = BUILTIN.find((d) => d.kind === "ConfigMap")!;
  for (const includeObject of ["None", "Metadata", "Object"] as const) {
    const table = tableFor(def, LISTS[2].items as any, { group: "meta.k8s.io", version: "v1", includeObject, listMeta: { resourceVersion: "42" } });
    expect(joined(listParts(REP.table, table)!)).toBe(JSON.stringify(table));
  }
});

test("single objects are not lists", () => {
  expect(listParts(REP.json, configMap(1))).toBeUndefined();
  expect(listParts(REP.protobuf, { kind: "Status", apiVersion: "v1", status: "Success" })).toBeUndefined();
});

test("a small body is answered whole", async () => {
  const l = LISTS[1];
  const body = await encodeSliced(listParts(REP.json, l)!, "test");
  expect(body).not.toBeInstanceOf(ReadableStream);
  expect(text(body as string | Uint8Array)).toBe(JSON.stringify(l));
});

test("a large body streams, equal to the whole, with turns of the event loop between slices", async () => {
  const l = list(Array.from({ length: 64 }, (_, i) => configMap(i, 256))); // ~17 MB: a few chunks
  let turns = 0;
  const timer = setInterval(() => turns++, 0);
  const body = await encodeSliced(listParts(REP.json, l)!, "test");
  expect(body).toBeInstanceOf(ReadableStream);
  const text = await new Response(body as ReadableStream).text();
  clearInterval(timer);
  expect(text).toBe(JSON.stringify(l));
  expect(turns).toBeGreaterThanOrEqual(2);

  const pb = await encodeSliced(listParts(REP.protobuf, l)!, "test");
  expect(pb).toBeInstanceOf(ReadableStream);
  expect(Buffer.compare(new Uint8Array(await new Response(pb as ReadableStream).arrayBuffer()), encodeObject(l))).toBe(0);
});

test("an item that cannot be encoded fails the list before any byte is sent", async () => {
  const l = list([...Array.from({ length: 8 }, (_, i) => configMap(i, 256)), { ...configMap(9), data: { a: 5 } }]);
  await expect(encodeSliced(listParts(REP.protobuf, l)!, "test")).rejects.toThrow("ConfigMap.data");
});
