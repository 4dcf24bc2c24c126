import { expect, test } from "bun:test";
import { NAMESPACE_INDEX, namespaceIndex, objectKey, Store } from "../../pkg/client/store.ts";

const pod = (ns: string, name: string, node?: string, rv = "1") => ({ metadata: { namespace: ns, name, resourceVersion: rv }, spec: { nodeName: node } });
const byNode = (o: any) => (o.spec?.nodeName ? [o.spec.nodeName] : []);

test("keys: namespace/name, or name for cluster-scoped objects", () => {
  expect(objectKey(pod("a", "p"))).toBe("a/p");
  expect(objectKey({ metadata: { name: "n1" } })).toBe("n1");
});

test("indexes follow adds, updates and deletes", () => {
  const s = new Store({ [NAMESPACE_INDEX]: namespaceIndex, node: byNode });
  s.upsert(pod("a", "p1"));
  s.upsert(pod("a", "p2", "n1"));
  s.upsert(pod("b", "p3", "n1"));
  expect(s.byIndex("node", "n1").map(objectKey).sort()).toEqual(["a/p2", "b/p3"]);
  expect(s.byIndex(NAMESPACE_INDEX, "a").map(objectKey).sort()).toEqual(["a/p1", "a/p2"]);
  // p1 is bound: it joins n1's entry; p2 moves to n2.
  s.upsert(pod("a", "p1", "n1", "2"));
  s.upsert(pod("a", "p2", "n2", "2"));
  expect(s.byIndex("node", "n1").map(objectKey).sort()).toEqual(["a/p1", "b/p3"]);
  expect(s.indexKeys("node", "n2")).toEqual(["a/p2"]);
  expect(s.remove(pod("b", "p3"))?.metadata.name).toBe("p3");
  expect(s.byIndex("node", "n1").map(objectKey)).toEqual(["a/p1"]);
  expect(s.indexValues("node").sort()).toEqual(["n1", "n2"]);
  expect(s.get("a/p1")?.metadata.resourceVersion).toBe("2");
  expect(() => s.byIndex("nope", "x")).toThrow("Index with name nope does not exist");
});

test("replace holds exactly the new items, re-indexed", () => {
  const s = new Store({ node: byNode });
  s.upsert(pod("a", "old", "n1"));
  s.replace([pod("a", "p1", "n2"), pod("a", "p2", "n2")], "42");
  expect(s.listKeys().sort()).toEqual(["a/p1", "a/p2"]);
  expect(s.byIndex("node", "n1")).toEqual([]);
  expect(s.byIndex("node", "n2").length).toBe(2);
  expect(s.resourceVersion).toBe("42");
});

test("an index added later covers the objects held; a taken name is refused", () => {
  const s = new Store();
  s.upsert(pod("a", "p1", "n1"));
  s.addIndexers({ node: byNode });
  expect(s.byIndex("node", "n1").length).toBe(1);
  expect(() => s.addIndexers({ node: byNode })).toThrow("indexer conflict: node");
});

test("multi-valued index functions", () => {
  const s = new Store({ labels: (o: any) => Object.entries(o.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`) });
  s.upsert({ metadata: { name: "x", labels: { a: "1", b: "2" } } });
  s.upsert({ metadata: { name: "x", labels: { a: "1", c: "3" } } });
  expect(s.indexValues("labels").sort()).toEqual(["a=1", "c=3"]);
});
