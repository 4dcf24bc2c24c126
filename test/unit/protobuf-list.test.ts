// A list assembled from its items' remembered messages is byte for byte the list encoded whole.
import { expect, test } from "bun:test";
import { decodeObject, encodeObject } from "../../pkg/protobuf/index.ts";
import { listProtobufParts } from "../../pkg/registry/serialized.ts";

const listProtobuf = (list: { items: object[] } & Record<string, any>) => Buffer.concat([...listProtobufParts(list)]);

const deployment = (i: number) => ({
  apiVersion: "apps/v1", kind: "Deployment",
  metadata: { name: `d${i}`, namespace: "default", uid: `u-${i}`, resourceVersion: String(10 + i), labels: { app: "web", "big-label": "x".repeat(200) } },
  spec: { replicas: i, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx:1.25", env: [{ name: "A", value: "b".repeat(300) }] }] } } },
  status: {},
});

test("a list's protobuf parts joined equal encodeObject of the whole list, and reuses the items' bytes", () => {
  const list = {
    apiVersion: "apps/v1", kind: "DeploymentList",
    metadata: { resourceVersion: "42", continue: "tok", remainingItemCount: 3 },
    items: Array.from({ length: 5 }, (_, i) => deployment(i)),
  };
  const whole = encodeObject(list);
  expect(Buffer.compare(listProtobuf(list), whole)).toBe(0);
  expect(Buffer.compare(listProtobuf(list), whole)).toBe(0); // second time from remembered item bytes
  const back = decodeObject(whole);
  expect(back.items.length).toBe(5);
  expect(back.metadata.continue).toBe("tok");
  expect(back.items[3].spec.replicas).toBe(3);
});

test("an empty list", () => {
  const list = { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: "7" }, items: [] };
  expect(Buffer.compare(listProtobuf(list), encodeObject(list))).toBe(0);
});
