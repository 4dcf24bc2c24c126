// Pod priority (upstream's Priority admission): spec.priority and spec.preemptionPolicy from the pod's
// PriorityClass or the cluster's default one, upstream's 403s, one default class at most, and the system
// classes every cluster has.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { kubectl, type TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "priority";
let s: TestServer;
useServer(NS, (x) => (s = x));

const CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses";
const pods = (ns = NS) => `/api/v1/namespaces/${ns}/pods`;
const podBody = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { containers: [{ name: "c", image: "nginx:1.21" }], ...spec } });
const createPod = (name: string, spec?: Record<string, unknown>, query = "") => s.call("POST", `${pods()}${query}`, podBody(name, spec));
const createClass = (name: string, value: number, extra: Record<string, unknown> = {}) => s.call("POST", CLASSES, { metadata: { name }, value, ...extra });

describe("the system classes", () => {
  test("exist from the start, with upstream's values", async () => {
    for (const [name, value, description] of [
      ["system-node-critical", 2000001000, "Used for system critical pods that must not be moved from their current node."],
      ["system-cluster-critical", 2000000000, "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."],
    ] as const) {
      const r = await s.call("GET", `${CLASSES}/${name}`);
      expectCode(r, 200, `GET ${name}`);
      expect(r.body).toMatchObject({ value, description, preemptionPolicy: "PreemptLowerPriority" });
      expect(r.body.globalDefault ?? false).toBe(false);
    }
  });

  test("kubectl get priorityclasses shows them", async () => {
    const r = await kubectl(s, ["get", "priorityclasses", "--no-headers", "-o", "custom-columns=NAME:.metadata.name,VALUE:.value"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim().split("\n").map((l) => l.split(/\s+/))).toEqual(expect.arrayContaining([
      ["system-cluster-critical", "2000000000"], ["system-node-critical", "2000001000"],
    ]));
  });

  test("cannot be deleted", async () => {
    const st = expectStatus(await s.call("DELETE", `${CLASSES}/system-node-critical`), 403, "Forbidden", "delete a system class");
    expect(st.message).toBe(`priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted`);
    expectCode(await s.call("GET", `${CLASSES}/system-node-critical`), 200, "still there");
  });

  test("any namespace may use them (v1.21 limits them only through quota configuration)", async () => {
    const r = await createPod("critical", { priorityClassName: "system-node-critical" });
    expectCode(r, 201, "pod with system-node-critical");
    expect(r.body.spec.priority).toBe(2000001000);
  });
});

describe("a pod's priority on create", () => {
  test("no class and no default: priority 0, PreemptLowerPriority, no class name", async () => {
    const r = await createPod("plain");
    expectCode(r, 201, "plain pod");
    expect(r.body.spec.priority).toBe(0);
    expect(r.body.spec.preemptionPolicy).toBe("PreemptLowerPriority");
    expect(r.body.spec.priorityClassName).toBeUndefined();
  });

  test("from the class it names, created a moment before", async () => {
    expectCode(await createClass("high", 1000, { preemptionPolicy: "Never" }), 201, "class high");
    const r = await createPod("important", { priorityClassName: "high" });
    expectCode(r, 201, "pod of class high");
    expect(r.body.spec).toMatchObject({ priorityClassName: "high", priority: 1000, preemptionPolicy: "Never" });
    // what it names may be given again, as long as it agrees
    expectCode(await createPod("agrees", { priorityClassName: "high", priority: 1000, preemptionPolicy: "Never" }), 201, "pod agreeing with its class");
  });

  test("a class that does not exist is 403", async () => {
    const st = expectStatus(await createPod("lost", { priorityClassName: "nope" }), 403, "Forbidden", "pod of a missing class");
    expect(st.message).toBe(`pods "lost" is forbidden: no PriorityClass with name nope was found`);
    expect(st.details).toEqual({ name: "lost", kind: "pods" });
    expectStatus(await s.call("GET", `${pods()}/lost`), 404, "NotFound", "nothing was stored");
  });

  test("a priority or preemptionPolicy of its own that differs from the class is 403", async () => {
    const own = expectStatus(await createPod("own", { priorityClassName: "high", priority: 5 }), 403, "Forbidden", "pod with its own priority");
    expect(own.message).toBe(`pods "own" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`);
    const noClass = expectStatus(await createPod("own2", { priority: 7 }), 403, "Forbidden", "pod with a priority and no class");
    expect(noClass.message).toBe(`pods "own2" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`);
    const policy = expectStatus(await createPod("own3", { preemptionPolicy: "Never" }), 403, "Forbidden", "pod with its own preemptionPolicy");
    expect(policy.message).toBe(`pods "own3" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name`);
  });

  test("a dry run is admitted the same way", async () => {
    const r = await createPod("dry", { priorityClassName: "high" }, "?dryRun=All");
    expectCode(r, 201, "dry-run pod");
    expect(r.body.spec.priority).toBe(1000);
    expectStatus(await createPod("dry2", { priorityClassName: "nope" }, "?dryRun=All"), 403, "Forbidden", "dry-run pod of a missing class");
  });

  test("an update keeps what admission set, even when the body leaves it out", async () => {
    const pod = (await s.call("GET", `${pods()}/important`)).body;
    delete pod.spec.priority;
    delete pod.spec.preemptionPolicy;
    pod.metadata.labels = { changed: "yes" };
    const r = await s.call("PUT", `${pods()}/important`, pod);
    expectCode(r, 200, "update without priority");
    expect(r.body.spec).toMatchObject({ priority: 1000, preemptionPolicy: "Never" });
  });
});

describe("the default class", () => {
  test("a pod naming no class gets it; a second default is 403; the default may change itself", async () => {
    expectCode(await createClass("base", 100, { globalDefault: true, preemptionPolicy: "Never" }), 201, "default class");
    const r = await createPod("defaulted");
    expectCode(r, 201, "pod without a class");
    expect(r.body.spec).toMatchObject({ priorityClassName: "base", priority: 100, preemptionPolicy: "Never" });

    const second = expectStatus(await createClass("other", 50, { globalDefault: true }), 403, "Forbidden", "a second default");
    expect(second.message).toBe(`priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass base is already marked as default. Only one default can exist`);
    const marked = await s.call("PATCH", `${CLASSES}/high`, { globalDefault: true }, { "Content-Type": "application/merge-patch+json" });
    expect(expectStatus(marked, 403, "Forbidden", "marking another class default").message)
      .toBe(`priorityclasses.scheduling.k8s.io "high" is forbidden: PriorityClass base is already marked as default. Only one default can exist`);
    const own = await s.call("PATCH", `${CLASSES}/base`, { description: "the default" }, { "Content-Type": "application/merge-patch+json" });
    expectCode(own, 200, "the default changes its description");

    expectCode(await s.call("DELETE", `${CLASSES}/base`), 200, "delete the default");
    const after = await createPod("undefaulted");
    expectCode(after, 201, "pod after the default is gone");
    expect(after.body.spec.priority).toBe(0);
    expect(after.body.spec.priorityClassName).toBeUndefined();
  });
});
