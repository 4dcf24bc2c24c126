// The node agent's flags and its Node: labels and taints as upstream parses them, quantities, the host's
// OS image, and status comparison (heartbeat times alone are no change).
import { expect, test } from "bun:test";
import { osImage, memTotalBytes } from "../../pkg/nodeagent/host.ts";
import { binaryQuantity, initialNode, nodeStatus, sameStatus } from "../../pkg/nodeagent/node.ts";
import { nodeAgentOptions, parseLabels, parseTaints } from "../../pkg/nodeagent/options.ts";

const host = { hostname: "h", cpus: 4, memoryBytes: 8 * 2 ** 30, kernelVersion: "6.1", osImage: "Debian", operatingSystem: "linux", architecture: "amd64", machineID: "m", bootID: "b", systemUUID: "s" };
const defaults = { "register-node": true, "max-pods": "110", "node-status-update-frequency": "10s", "root-dir": "/tmp/r", "file-check-frequency": "20s", "pod-max-pids": "-1" };

test("labels and taints as upstream parses them", () => {
  expect(parseLabels("node-labels", "a=b,node.kubernetes.io/x=,kubernetes.io/os=linux")).toEqual({ a: "b", "node.kubernetes.io/x": "", "kubernetes.io/os": "linux" });
  expect(() => parseLabels("node-labels", "a")).toThrow("invalid label");
  expect(() => parseLabels("node-labels", "node-role.kubernetes.io/master=")).toThrow("unknown 'kubernetes.io' or 'k8s.io' labels");
  expect(parseTaints("register-with-taints", "k=v:NoSchedule,k2:NoExecute")).toEqual([{ key: "k", value: "v", effect: "NoSchedule" }, { key: "k2", effect: "NoExecute" }]);
  expect(() => parseTaints("register-with-taints", "k=v")).toThrow("missing the effect");
});

test("options: node name from the override (lowercased), defaults as upstream", () => {
  const o = nodeAgentOptions({ ...defaults, "hostname-override": "Node-A" });
  expect(o).toMatchObject({ nodeName: "node-a", registerNode: true, maxPods: 110, nodeStatusUpdateFrequencyMs: 10_000, fileCheckFrequencyMs: 20_000 });
  expect(() => nodeAgentOptions({ ...defaults, "hostname-override": "bad_name" })).toThrow("invalid node name");
  expect(() => nodeAgentOptions({ ...defaults, "node-status-update-frequency": "0s" })).toThrow("must be greater than 0");
  expect(o.podMaxPids).toBe(-1);
  expect(nodeAgentOptions({ ...defaults, "pod-max-pids": "100" }).podMaxPids).toBe(100);
  expect(() => nodeAgentOptions({ ...defaults, "pod-max-pids": "-2" })).toThrow(`invalid argument "-2" for "--pod-max-pids" flag`);
});

test("the Ready condition's message says what the runtime cannot enforce", () => {
  const o = nodeAgentOptions({ ...defaults, "hostname-override": "n1" });
  const facts = { host, nodeIP: "10.0.0.1", ephemeralStorageBytes: 2 ** 30 };
  const ready = (f: object) => nodeStatus(o, { ...facts, ...f }, undefined, new Date()).conditions.find((c: any) => c.type === "Ready");
  expect(ready({}).message).toBe("kubelet is posting ready status");
  expect(ready({ readyNote: "resource limits are not enforced: cgroups are not writable: EROFS" })).toMatchObject({ status: "True", message: "kubelet is posting ready status. resource limits are not enforced: cgroups are not writable: EROFS" });
});

test("quantities in BinarySI, the OS image from os-release, MemTotal", () => {
  expect([binaryQuantity(8 * 2 ** 30), binaryQuantity(16393752 * 1024), binaryQuantity(1000)]).toEqual(["8Gi", "16393752Ki", "1000"]);
  expect(osImage('NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n')).toBe("Debian GNU/Linux 12 (bookworm)");
  expect(osImage("")).toBe("Linux");
  expect(memTotalBytes("MemTotal:       16393752 kB\nMemFree: 1 kB\n")).toBe(16393752 * 1024);
});

test("the Node, and status comparison that ignores heartbeat times but keeps transition times", () => {
  const o = nodeAgentOptions({ ...defaults, "hostname-override": "n1", "register-with-taints": "a:NoSchedule" });
  const facts = { host, nodeIP: "10.0.0.1", ephemeralStorageBytes: 100 * 2 ** 30 };
  const node = initialNode(o, facts, new Date("2021-01-01T00:00:00Z"));
  expect(node.spec.taints).toEqual([{ key: "a", effect: "NoSchedule" }]);
  expect(node.status.capacity).toEqual({ cpu: "4", "ephemeral-storage": "100Gi", memory: "8Gi", pods: "110" });
  const later = nodeStatus(o, facts, node.status, new Date("2021-01-01T00:01:00Z"));
  expect(later.conditions[3]).toMatchObject({ lastHeartbeatTime: "2021-01-01T00:01:00Z", lastTransitionTime: "2021-01-01T00:00:00Z" });
  expect(sameStatus(node.status, later)).toBe(true);
  expect(sameStatus(node.status, nodeStatus(o, { ...facts, nodeIP: "10.0.0.2" }, node.status, new Date()))).toBe(false);
});
