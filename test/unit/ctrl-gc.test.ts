// The garbage collector's ownership graph, the types it follows, and the namespace controller's conditions.
import { expect, test } from "bun:test";
import type { ApiResource } from "../../pkg/client/discovery.ts";
import { RESOURCES } from "../../pkg/client/resources.ts";
import { deletableResources } from "../../pkg/controllers/garbagecollector.ts";
import { OwnershipGraph } from "../../pkg/controllers/garbagecollector-graph.ts";
import { nextConditions, type DeletionReport } from "../../pkg/controllers/namespace-conditions.ts";

const cm = (uid: string, ns: string | undefined, owners: { uid: string; block?: boolean }[] = []) => ({
  metadata: { uid, name: uid, namespace: ns, ownerReferences: owners.map((o) => ({ apiVersion: "v1", kind: "ConfigMap", name: o.uid, uid: o.uid, blockOwnerDeletion: o.block })) },
});

test("the graph indexes dependents by owner uid, before and after the owner is seen, and follows reference changes", () => {
  const g = new OwnershipGraph();
  g.observe(RESOURCES.configmaps, cm("d1", "a", [{ uid: "o", block: true }]));
  g.observe(RESOURCES.configmaps, cm("d2", "a", [{ uid: "o" }]));
  expect(g.dependentsOf("o").map((n) => n.uid)).toEqual(["d1", "d2"]);
  expect(g.blockingDependentsOf("o").map((n) => n.uid)).toEqual(["d1"]);
  g.observe(RESOURCES.configmaps, cm("o", "a"));
  expect(g.ownerFor(cm("d1", "a"), { uid: "o" })?.uid).toBe("o");
  // a namespaced owner owns nothing in another namespace
  expect(g.ownerFor(cm("x", "b"), { uid: "o" })).toBeUndefined();
  // d1 drops its reference: the owner no longer waits for it
  expect(g.observe(RESOURCES.configmaps, cm("d1", "a"))).toEqual(["o"]);
  expect(g.blockingDependentsOf("o")).toEqual([]);
  g.remove("d2");
  expect(g.dependentsOf("o")).toEqual([]);
});

test("the collector follows preferred, listable, watchable, deletable types, events aside", () => {
  const r = (group: string, resource: string, verbs: string[], preferred = true) => ({ group, version: "v1", resource, kind: resource, verbs, preferred }) as unknown as ApiResource;
  const all = [
    r("", "configmaps", ["list", "watch", "delete", "get"]), r("", "events", ["list", "watch", "delete"]), r("events.k8s.io", "events", ["list", "watch", "delete"]),
    r("", "bindings", ["create"]), r("apps", "deployments", ["list", "watch", "delete"], false), r("authorization.k8s.io", "selfsubjectaccessreviews", ["create"]),
  ];
  expect(deletableResources(all).map((x) => x.resource)).toEqual(["configmaps"]);
});

const report = (o: Partial<DeletionReport> = {}): DeletionReport => ({ contentErrors: [], remaining: new Map(), finalizers: new Map(), ...o });

test("namespace conditions: upstream's ok words when all is well, failures with counts sorted", () => {
  const ok = nextConditions(undefined, report(), "T0")!;
  expect(ok.map((c) => [c.type, c.status, c.reason])).toEqual([
    ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered"],
    ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions"],
    ["NamespaceDeletionContentFailure", "False", "ContentDeleted"],
    ["NamespaceContentRemaining", "False", "ContentRemoved"],
    ["NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers"],
  ]);
  expect(nextConditions(ok, report(), "T1")).toBeUndefined();
  const bad = nextConditions(ok, report({
    discoveryError: "boom", contentErrors: ["b failed", "a failed"],
    remaining: new Map([["pods.", 2], ["deployments.apps", 1]]), finalizers: new Map([["x/y", 1], ["a/b", 2]]),
  }), "T2")!;
  const by = Object.fromEntries(bad.map((c) => [c.type, c]));
  expect(by.NamespaceDeletionDiscoveryFailure).toMatchObject({ status: "True", reason: "DiscoveryFailed", message: "boom", lastTransitionTime: "T2" });
  expect(by.NamespaceDeletionContentFailure.message).toBe("Failed to delete all resource types, 2 remaining: a failed, b failed");
  expect(by.NamespaceContentRemaining.message).toBe("Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances");
  expect(by.NamespaceFinalizersRemaining.message).toBe("Some content in the namespace has finalizers remaining: a/b in 2 resource instances, x/y in 1 resource instances");
  expect(by.NamespaceDeletionGroupVersionParsingFailure.lastTransitionTime).toBe("T0");
});
