// Pure logic of the StatefulSet and DaemonSet controllers: where a daemon pod belongs (taints, selectors,
// the template's nodeName), which old daemon pods a rolling update deletes, revision hashes and the
// identity and storage of stateful pods.
import { expect, test } from "bun:test";
import { placement, probePod, targetNode } from "../../pkg/controllers/daemonset-nodes.ts";
import { maxUnavailable, podsToReplace } from "../../pkg/controllers/daemonset-update.ts";
import { applyRevision, hashRevision, templatePatch } from "../../pkg/controllers/history.ts";
import { claimsFor, identityMatches, newPod, storageMatches } from "../../pkg/controllers/statefulset-pods.ts";
import type { Node } from "../../pkg/scheduler/framework/api.ts";

const daemonSet = (podSpec: any = {}, spec: any = {}) =>
  ({ metadata: { name: "ds", namespace: "default" }, spec: { ...spec, template: { metadata: { labels: { app: "ds" } }, spec: { containers: [{ name: "c" }], ...podSpec } } } });
const node = (name: string, labels: Record<string, string> = {}, taints: any[] = []) => ({ metadata: { name, labels }, spec: { taints } }) as Node;

test.each([
  // what the node or pod has → shouldRun, shouldContinueRunning
  ["a plain node", node("a"), {}, true, true],
  ["a NoSchedule taint", node("a", {}, [{ key: "k", effect: "NoSchedule" }]), {}, false, true],
  ["a NoExecute taint", node("a", {}, [{ key: "k", effect: "NoExecute" }]), {}, false, false],
  ["a PreferNoSchedule taint", node("a", {}, [{ key: "k", effect: "PreferNoSchedule" }]), {}, true, true],
  ["a tolerated NoExecute taint", node("a", {}, [{ key: "k", value: "v", effect: "NoExecute" }]), { tolerations: [{ key: "k", value: "v" }] }, true, true],
  ["cordoned (the unschedulable taint daemon pods tolerate)", node("a", {}, [{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }]), {}, true, true],
  ["not ready (tolerated)", node("a", {}, [{ key: "node.kubernetes.io/not-ready", effect: "NoExecute" }]), {}, true, true],
  ["an unmatched nodeSelector", node("a"), { nodeSelector: { disk: "ssd" } }, false, false],
  ["a matched nodeSelector", node("a", { disk: "ssd" }), { nodeSelector: { disk: "ssd" } }, true, true],
  ["another nodeName", node("a"), { nodeName: "b" }, false, false],
  ["an unmatched required affinity", node("a"), { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["b"] }] }] } } } }, false, false],
] as const)("a daemon pod on %s", (_what, n, podSpec, shouldRun, shouldContinueRunning) => {
  const ds = daemonSet(podSpec);
  expect(placement(ds, probePod(ds), n)).toEqual({ shouldRun, shouldContinueRunning });
});

test("a daemon pod's node is its nodeName or its metadata.name affinity", () => {
  expect(targetNode({ spec: { nodeName: "x" } })).toBe("x");
  expect(targetNode({ spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["y"] }] }] } } } } })).toBe("y");
  expect(targetNode({ spec: {} })).toBeUndefined();
});

const pod = (name: string, hash: string, ready: boolean, extra: any = {}) => ({
  metadata: { name, labels: { "controller-revision-hash": hash }, ...extra },
  status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});

test("maxUnavailable is a count or a percentage of the desired nodes rounded up, at least 1", () => {
  expect(maxUnavailable(daemonSet({}, { updateStrategy: { rollingUpdate: { maxUnavailable: 2 } } }), 10)).toBe(2);
  expect(maxUnavailable(daemonSet({}, { updateStrategy: { rollingUpdate: { maxUnavailable: "25%" } } }), 10)).toBe(3);
  expect(maxUnavailable(daemonSet({}, { updateStrategy: { rollingUpdate: { maxUnavailable: "0%" } } }), 10)).toBe(1);
  expect(maxUnavailable(daemonSet(), 10)).toBe(1);
});

test("a rolling update deletes unavailable old pods at once and available ones within maxUnavailable", () => {
  const ds = daemonSet({}, { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } } });
  const byNode = new Map<string, any[]>([
    ["a", [pod("a-old", "old", true)]], ["b", [pod("b-old", "old", true)]], ["c", [pod("c-old", "old", true)]],
    ["d", [pod("d-old", "old", false)]], ["e", [pod("e-new", "new", false)]],
  ]);
  // e is unavailable: one more old available pod may go, and the unavailable d always goes
  expect(podsToReplace(ds, byNode, "new", 5).map((p) => p.metadata.name)).toEqual(["d-old", "a-old"]);
  byNode.set("e", [pod("e-new", "new", true)]);
  expect(podsToReplace(ds, byNode, "new", 5).map((p) => p.metadata.name)).toEqual(["d-old", "a-old", "b-old"]);
  // a node with an old pod terminating and no new one yet counts as unavailable
  byNode.set("e", [pod("e-old", "old", true, { deletionTimestamp: "2026-01-01T00:00:00Z" })]);
  expect(podsToReplace(ds, byNode, "new", 5).map((p) => p.metadata.name)).toEqual(["d-old", "a-old"]);
});

test("a revision's hash follows its data and collision count, not key order; applying it restores the template", () => {
  const a = { spec: { template: { metadata: { labels: { app: "x" } }, spec: { containers: [{ name: "c", image: "1" }] } } } };
  const b = { spec: { template: { spec: { containers: [{ image: "1", name: "c" }] }, metadata: { labels: { app: "x" } } } } };
  expect(hashRevision(templatePatch(a))).toBe(hashRevision(templatePatch(b)));
  expect(hashRevision(templatePatch(a), 1)).not.toBe(hashRevision(templatePatch(a)));
  expect(hashRevision(templatePatch(a))).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
  const other = { ...a, spec: { ...a.spec, template: { spec: { containers: [{ name: "c", image: "2" }] } } } };
  expect(applyRevision(other, { data: templatePatch(a) }).spec.template).toEqual(a.spec.template);
});

test("a stateful pod has its ordinal name, hostname, subdomain, label and claims", () => {
  const set = {
    metadata: { name: "web", namespace: "ns", uid: "u" },
    spec: {
      serviceName: "svc", selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { volumes: [{ name: "data", emptyDir: {} }] } },
      volumeClaimTemplates: [{ metadata: { name: "data", labels: { tier: "db" } }, spec: {} }],
    },
  };
  const p = newPod(set, { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "u", controller: true }, 2, "web-abc");
  expect(p.metadata).toMatchObject({ name: "web-2", namespace: "ns", labels: { app: "web", "statefulset.kubernetes.io/pod-name": "web-2", "controller-revision-hash": "web-abc" } });
  expect(p.metadata.generateName).toBeUndefined();
  expect(p.spec).toMatchObject({ hostname: "web-2", subdomain: "svc", volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-web-2" } }] });
  expect(identityMatches(set, p) && storageMatches(set, p)).toBe(true);
  expect(identityMatches(set, { ...p, metadata: { ...p.metadata, labels: { app: "web" } } })).toBe(false);
  expect(storageMatches(set, { ...p, spec: { volumes: [] } })).toBe(false);
  expect([...claimsFor(set, 2).values()][0].metadata).toEqual({ name: "data-web-2", namespace: "ns", labels: { tier: "db", app: "web" } });
});
