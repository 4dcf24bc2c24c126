// Strategic merge patch: cases follow upstream apimachinery's documented behaviour and tests.
import { test, expect } from "bun:test";
import { PatchError, patchMetaFor, strategicMergePatch } from "../../pkg/patch/strategic.ts";

type Any = any;
const podSpecOf = (containers: unknown[]) => ({ spec: { template: { spec: { containers } } } });
const containersOf = (d: Any) => d.spec.template.spec.containers;

test("kubectl apply patch: edit one container, remove the other", () => {
  const original = podSpecOf([
    { name: "a", image: "nginx:1", env: [{ name: "X", value: "1" }, { name: "Y", value: "2" }] },
    { name: "b", image: "busybox" },
  ]);
  const patch = JSON.parse(
    `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"$setElementOrder/env":[{"name":"X"}],"env":[{"name":"X","value":"9"},{"$patch":"delete","name":"Y"}],"image":"nginx:2","name":"a"},{"$patch":"delete","name":"b"}]}}}}`,
  );
  const before = structuredClone(original);
  const patchBefore = structuredClone(patch);
  const out = strategicMergePatch(original, patch, "Deployment");
  expect(containersOf(out)).toEqual([{ name: "a", image: "nginx:2", env: [{ name: "X", value: "9" }] }]);
  expect(original).toEqual(before); // inputs untouched
  expect(patch).toEqual(patchBefore);
});

test("null deletes a key; maps merge recursively", () => {
  const out = strategicMergePatch(
    { metadata: { name: "c", labels: { a: "1", b: "2" } }, data: { k: "v" } },
    { metadata: { labels: { a: null, c: "3" } }, data: { n: "m" }, absent: null },
    "ConfigMap",
  );
  expect(out).toEqual({ metadata: { name: "c", labels: { b: "2", c: "3" } }, data: { k: "v", n: "m" } });
});

test("$patch: replace on a map replaces it; $patch: delete empties it", () => {
  const original = { data: { a: "1", b: "2" }, metadata: { labels: { x: "y" } } };
  const out: Any = strategicMergePatch(
    original,
    { data: { $patch: "replace", c: "3" }, metadata: { labels: { $patch: "delete" } } },
    "ConfigMap",
  );
  expect(out.data).toEqual({ c: "3" });
  expect(out.metadata.labels).toEqual({});
});

test("service ports merge by port", () => {
  const out: Any = strategicMergePatch(
    { spec: { ports: [{ port: 80, targetPort: 8080, name: "http" }, { port: 443, name: "https" }] } },
    { spec: { ports: [{ port: 80, targetPort: 9090 }, { port: 8443, name: "alt" }] } },
    "Service",
  );
  // Patch items take the patch's order; new items come before server-only ones.
  expect(out.spec.ports).toEqual([
    { port: 80, targetPort: 9090, name: "http" },
    { port: 8443, name: "alt" },
    { port: 443, name: "https" },
  ]);
});

test("container ports, env and volumeMounts merge by their keys inside a Pod", () => {
  const original = {
    spec: {
      containers: [{
        name: "c",
        ports: [{ containerPort: 80 }],
        env: [{ name: "A", value: "1" }],
        volumeMounts: [{ mountPath: "/data", name: "d" }],
      }],
    },
  };
  const out: Any = strategicMergePatch(original, {
    spec: {
      containers: [{
        name: "c",
        ports: [{ containerPort: 80, protocol: "TCP" }],
        env: [{ name: "B", value: "2" }],
        volumeMounts: [{ mountPath: "/data", readOnly: true }],
      }],
    },
  }, "Pod");
  // Without $setElementOrder a new item lands before the server-only ones, as upstream does.
  expect(out.spec.containers[0]).toEqual({
    name: "c",
    ports: [{ containerPort: 80, protocol: "TCP" }],
    env: [{ name: "B", value: "2" }, { name: "A", value: "1" }],
    volumeMounts: [{ mountPath: "/data", name: "d", readOnly: true }],
  });
});

test("lists without a patch strategy are replaced (tolerations, envFrom, args)", () => {
  const out: Any = strategicMergePatch(
    {
      spec: {
        tolerations: [{ key: "a", operator: "Exists" }],
        containers: [{ name: "c", args: ["x", "y"], envFrom: [{ configMapRef: { name: "m" } }] }],
      },
    },
    {
      spec: {
        tolerations: [{ key: "b", operator: "Exists" }],
        containers: [{ name: "c", args: ["z"], envFrom: [{ secretRef: { name: "s" } }] }],
      },
    },
    "Pod",
  );
  expect(out.spec.tolerations).toEqual([{ key: "b", operator: "Exists" }]);
  expect(out.spec.containers).toEqual([{ name: "c", args: ["z"], envFrom: [{ secretRef: { name: "s" } }] }]);
});

test("CronJob reaches the pod spec through jobTemplate", () => {
  const out: Any = strategicMergePatch(
    { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: "a", image: "1" }] } } } } } },
    { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: "b", image: "2" }] } } } } } },
    "CronJob",
  );
  expect(out.spec.jobTemplate.spec.template.spec.containers.map((c: Any) => c.name)).toEqual(["b", "a"]);
});

test("unknown kinds: lists are replaced, metadata rules still apply", () => {
  const out: Any = strategicMergePatch(
    { metadata: { finalizers: ["a"] }, spec: { containers: [{ name: "a" }] } },
    { metadata: { finalizers: ["b"] }, spec: { containers: [{ name: "b" }] } },
    "Widget",
  );
  expect(out.spec.containers).toEqual([{ name: "b" }]);
  expect(out.metadata.finalizers).toEqual(["b", "a"]);
});

test("merge-strategy primitive lists are unioned without duplicates (finalizers)", () => {
  const out: Any = strategicMergePatch(
    { metadata: { finalizers: ["x", "y"] } },
    { metadata: { finalizers: ["y", "z"] } },
    "ConfigMap",
  );
  expect(out.metadata.finalizers).toEqual(["x", "y", "z"]);
});

test("$deleteFromPrimitiveList/finalizers removes items and never adds the list", () => {
  const out: Any = strategicMergePatch(
    { metadata: { finalizers: ["a", "b", "c"] } },
    { metadata: { "$deleteFromPrimitiveList/finalizers": ["b", "nope"] } },
    "Namespace",
  );
  expect(out.metadata.finalizers).toEqual(["a", "c"]);
  const none: Any = strategicMergePatch({ metadata: { name: "n" } },
    { metadata: { "$deleteFromPrimitiveList/finalizers": ["b"] } }, "Namespace");
  expect(none.metadata).toEqual({ name: "n" });
});

test("$retainKeys clears fields not listed (Deployment strategy)", () => {
  const out: Any = strategicMergePatch(
    { spec: { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } } } },
    { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
    "Deployment",
  );
  expect(out.spec.strategy).toEqual({ type: "Recreate" });
});

test("$retainKeys must list every field the patch sets", () => {
  expect(() => strategicMergePatch(
    { spec: { strategy: { type: "RollingUpdate" } } },
    { spec: { strategy: { $retainKeys: ["type"], rollingUpdate: { maxSurge: 2 } } } },
    "Deployment",
  )).toThrow("invalid patch format of retainKeys");
});

test("$patch: replace inside a merge list replaces the list; ownerReferences merge by uid", () => {
  const out: Any = strategicMergePatch(
    { metadata: { ownerReferences: [{ uid: "1", name: "a" }, { uid: "2", name: "b" }] }, spec: { volumes: [{ name: "v1" }] } },
    { metadata: { ownerReferences: [{ uid: "2", controller: true }] }, spec: { volumes: [{ $patch: "replace" }, { name: "v2" }] } },
    "Pod",
  );
  expect(out.metadata.ownerReferences).toEqual([{ uid: "1", name: "a" }, { uid: "2", name: "b", controller: true }]);
  expect(out.spec.volumes).toEqual([{ name: "v2" }]);
});

test("$patch: delete removes every item with that key", () => {
  const out: Any = strategicMergePatch(
    { status: { conditions: [{ type: "A" }, { type: "B", status: "True" }, { type: "A" }] } },
    { status: { conditions: [{ type: "A", $patch: "delete" }] } },
    "Node",
  );
  expect(out.status.conditions).toEqual([{ type: "B", status: "True" }]);
});

test("$setElementOrder reorders and keeps server-only items in place", () => {
  // upstream: "set elements order in a list with server-only items 2"
  const out: Any = strategicMergePatch(
    { spec: { containers: [{ name: "1", x: "a" }, { name: "2" }, { name: "9" }, { name: "3" }, { name: "4" }] } },
    { spec: { "$setElementOrder/containers": [{ name: "2" }, { name: "1" }, { name: "4" }, { name: "3" }] } },
    "Pod",
  );
  expect(out.spec.containers.map((c: Any) => c.name)).toEqual(["2", "1", "9", "4", "3"]);
  expect(out.spec.containers[1]).toEqual({ name: "1", x: "a" });
});

test("$setElementOrder on a primitive list", () => {
  const out: Any = strategicMergePatch(
    { metadata: { finalizers: ["1", "3"] } },
    { metadata: { "$setElementOrder/finalizers": ["3", "2", "1"] } },
    "Pod",
  );
  expect(out.metadata.finalizers).toEqual(["3", "1"]);
});

test("a patch list out of $setElementOrder's order is rejected", () => {
  expect(() => strategicMergePatch(
    { spec: { containers: [{ name: "1" }, { name: "3" }, { name: "2" }] } },
    { spec: { "$setElementOrder/containers": [{ name: "1" }, { name: "2" }, { name: "3" }], containers: [{ name: "3" }, { name: "1" }] } },
    "Pod",
  )).toThrow("doesn't match");
});

test("a merge-list item without its merge key is rejected", () => {
  expect(() => strategicMergePatch(
    { spec: { containers: [{ name: "a" }] } },
    { spec: { containers: [{ image: "b" }] } },
    "Pod",
  )).toThrow("does not contain declared merge key: name");
});

test("an unknown $patch directive is a PatchError", () => {
  const bad = () => strategicMergePatch({ data: { a: "1" } }, { data: { $patch: "explode" } }, "ConfigMap");
  expect(bad).toThrow(PatchError);
  expect(bad).toThrow("unknown patch type: explode in map: map[$patch:explode]");
  expect(() => strategicMergePatch(
    { spec: { containers: [{ name: "a" }] } },
    { spec: { containers: [{ name: "a", $patch: "merge" }] } },
    "Pod",
  )).toThrow("merging lists cannot yet be specified in the patch");
  expect(() => strategicMergePatch({}, { $deleteFromPrimitiveList: ["x"] }, "Pod"))
    .toThrow("invalid patch format of primitive list");
});

test("new values arrive without directives or nulls", () => {
  const out: Any = strategicMergePatch(
    { spec: {} },
    { spec: { containers: [{ name: "a", env: [{ name: "X", value: null }] }, { name: "gone", $patch: "delete" }] } },
    "Pod",
  );
  expect(out.spec.containers).toEqual([{ name: "a", env: [{ name: "X" }] }]);
});

test("patchMetaFor exposes merge keys", () => {
  expect(patchMetaFor("Service").spec.fields?.ports).toEqual({ strategy: "merge", key: "port", fields: undefined });
  expect(patchMetaFor("Anything").metadata.fields?.ownerReferences.key).toBe("uid");
});
