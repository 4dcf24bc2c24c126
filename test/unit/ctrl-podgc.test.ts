// podgc's choices: the oldest finished pods beyond the threshold, unscheduled pods being deleted, and pods
// of nodes missing for the 40 s quarantine (a fake clock).
import { expect, test } from "bun:test";
import { NodeQuarantine, QUARANTINE_MS, terminatedToDelete, unscheduledTerminating } from "../../pkg/controllers/podgc.ts";

const pod = (name: string, phase: string, created: string, extra: { nodeName?: string; deleting?: boolean } = {}) => ({
  metadata: { name, namespace: "ns", creationTimestamp: created, ...(extra.deleting ? { deletionTimestamp: created } : {}) },
  spec: extra.nodeName ? { nodeName: extra.nodeName } : {},
  status: { phase },
});

test("the oldest finished pods beyond the threshold go, ties by name; a threshold of 0 or less keeps them all", () => {
  const pods = [
    pod("c", "Succeeded", "2021-04-08T12:00:02Z"), pod("b", "Failed", "2021-04-08T12:00:01Z"), pod("a", "Succeeded", "2021-04-08T12:00:01Z"),
    pod("run", "Running", "2021-04-08T12:00:00Z"), pod("wait", "Pending", "2021-04-08T12:00:00Z"), pod("lost", "Unknown", "2021-04-08T12:00:00Z"),
  ];
  expect(terminatedToDelete(pods, 1).map((p) => p.metadata.name)).toEqual(["a", "b"]);
  expect(terminatedToDelete(pods, 3)).toEqual([]);
  expect(terminatedToDelete(pods, 0)).toEqual([]);
  expect(terminatedToDelete(pods, -1)).toEqual([]);
});

test("pods being deleted that no node holds are collected; scheduled ones wait for their node", () => {
  const pods = [pod("free", "Pending", "2021-04-08T12:00:00Z", { deleting: true }), pod("bound", "Running", "2021-04-08T12:00:00Z", { deleting: true, nodeName: "n1" }), pod("new", "Pending", "2021-04-08T12:00:00Z")];
  expect(unscheduledTerminating(pods).map((p) => p.metadata.name)).toEqual(["free"]);
});

test("a missing node is due once it has been missing for the quarantine, and not if it came back", () => {
  let now = 1_000_000;
  const q = new NodeQuarantine(() => now);
  const pods = [pod("p1", "Running", "2021-04-08T12:00:00Z", { nodeName: "gone" }), pod("p2", "Running", "2021-04-08T12:00:00Z", { nodeName: "back" }), pod("p3", "Running", "2021-04-08T12:00:00Z", { nodeName: "here" })];
  expect(q.due(pods, new Set(["here"]))).toEqual([]);
  now += QUARANTINE_MS - 1;
  expect(q.due(pods, new Set(["here"]))).toEqual([]);
  now += 1;
  expect(q.due(pods, new Set(["here", "back"]))).toEqual(["gone"]);
  // due once: a node still missing starts a new quarantine
  expect(q.due(pods, new Set(["here", "back"]))).toEqual([]);
});
