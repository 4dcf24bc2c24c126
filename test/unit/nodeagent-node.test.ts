// The node agent's flags and its Node: labels and taints as upstream parses them, quantities, the host's
// OS image, and status comparison (heartbeat times alone are no change).
import { expect, test } from "bun:test";
import { osImage, memTotalBytes } from "../../pkg/nodeagent/host.ts";
import { binaryQuantity, initialNode, nodeStatus, sameStatus } from "../../pkg/nodeagent/node.ts";
import { NODE_AGENT_ARGS } from "../../pkg/nodeagent/flags.ts";
import { nodeAgentOptions, parseLabels, parseTaints } from "../../pkg/nodeagent/options.ts";

const host = { hostname: "h", cpus: 4, memoryBytes: 8 * 2 ** 30, kernelVersion: "6.1", osImage: "Debian", operatingSystem: "linux", architecture: "amd64", machineID: "m", bootID: "b", systemUUID: "s" };
/** Every flag's default, as citty hands them to the command. */
const defaults: Record<string, any> = {
  ...Object.fromEntries(Object.entries(NODE_AGENT_ARGS).flatMap(([k, d]) => ("default" in d ? [[k, d.default]] : []))),
  "root-dir": "/tmp/r",
};

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
  const facts = { host, nodeIP: "10.0.0.1", kubeletPort: 10250, ephemeralStorageBytes: 2 ** 30 };
  const ready = (f: object) => nodeStatus(o, { ...facts, ...f }, undefined, new Date()).conditions.find((c: any) => c.type === "Ready");
  expect(ready({}).message).toBe("kubelet is posting ready status");
  expect(ready({ readyNotes: ["resource limits are not enforced: cgroups are not writable: EROFS"] })).toMatchObject({ status: "True", message: "kubelet is posting ready status. resource limits are not enforced: cgroups are not writable: EROFS" });
});

test("the servers' and log rotation's options: upstream's defaults, 0 turning a port off, bad values refused", () => {
  const o = nodeAgentOptions({ ...defaults, "hostname-override": "n1" });
  expect(o.serving).toMatchObject({
    main: { host: "0.0.0.0", port: 10250 }, readOnly: { host: "0.0.0.0", port: 10255 }, healthz: { host: "127.0.0.1", port: 10248 }, certDir: "/tmp/r/pki",
    authentication: { anonymous: true, webhook: false, webhookCacheTtlMs: 120_000 },
    authorization: { mode: "AlwaysAllow", authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000 },
  });
  expect(o.logRotation).toEqual({ maxBytes: 10 * 2 ** 20, maxFiles: 5 });
  const off = nodeAgentOptions({ ...defaults, "read-only-port": "0", "healthz-port": "0" });
  expect([off.serving.readOnly, off.serving.healthz]).toEqual([undefined, undefined]);
  expect(() => nodeAgentOptions({ ...defaults, "authorization-mode": "RBAC" })).toThrow(`invalid argument "RBAC" for "--authorization-mode" flag`);
  expect(() => nodeAgentOptions({ ...defaults, "container-log-max-files": "1" })).toThrow("ContainerLogMaxFiles (--container-log-max-files) 1 must be > 1");
  expect(() => nodeAgentOptions({ ...defaults, "container-log-max-size": "lots" })).toThrow("--container-log-max-size");
  expect(() => nodeAgentOptions({ ...defaults, port: "70000" })).toThrow(`"--port" flag`);
});

test("quantities in BinarySI, the OS image from os-release, MemTotal", () => {
  expect([binaryQuantity(8 * 2 ** 30), binaryQuantity(16393752 * 1024), binaryQuantity(1000)]).toEqual(["8Gi", "16393752Ki", "1000"]);
  expect(osImage('NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n')).toBe("Debian GNU/Linux 12 (bookworm)");
  expect(osImage("")).toBe("Linux");
  expect(memTotalBytes("MemTotal:       16393752 kB\nMemFree: 1 kB\n")).toBe(16393752 * 1024);
});

test("the Node, and status comparison that ignores heartbeat times but keeps transition times", () => {
  const o = nodeAgentOptions({ ...defaults, "hostname-override": "n1", "register-with-taints": "a:NoSchedule" });
  const facts = { host, nodeIP: "10.0.0.1", kubeletPort: 10250, ephemeralStorageBytes: 100 * 2 ** 30 };
  const node = initialNode(o, facts, new Date("2021-01-01T00:00:00Z"));
  expect(node.spec.taints).toEqual([{ key: "a", effect: "NoSchedule" }]);
  expect(node.status.capacity).toEqual({ cpu: "4", "ephemeral-storage": "100Gi", memory: "8Gi", pods: "110" });
  // the default hard eviction thresholds come off allocatable: memory.available<100Mi, nodefs.available<10%
  expect(node.status.allocatable).toEqual({ cpu: "4", "ephemeral-storage": "90Gi", memory: "8092Mi", pods: "110" });
  expect(node.status.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 10250 } });
  const later = nodeStatus(o, facts, node.status, new Date("2021-01-01T00:01:00Z"));
  expect(later.conditions[3]).toMatchObject({ lastHeartbeatTime: "2021-01-01T00:01:00Z", lastTransitionTime: "2021-01-01T00:00:00Z" });
  expect(sameStatus(node.status, later)).toBe(true);
  expect(sameStatus(node.status, nodeStatus(o, { ...facts, nodeIP: "10.0.0.2" }, node.status, new Date()))).toBe(false);
});

test("allocatable: --kube-reserved, --system-reserved and hard eviction thresholds come off capacity; --pods-per-core caps pods", () => {
  const facts = { host, nodeIP: "10.0.0.1", kubeletPort: 10250, ephemeralStorageBytes: 100 * 2 ** 30 };
  const o = nodeAgentOptions({
    ...defaults, "hostname-override": "n1", "pods-per-core": "10", "kube-reserved": "cpu=200m,memory=512Mi", "system-reserved": "cpu=300m,ephemeral-storage=10Gi",
    "eviction-hard": "memory.available<1Gi,nodefs.available<20Gi",
  });
  const s = nodeStatus(o, facts, undefined, new Date());
  expect(s.capacity).toMatchObject({ cpu: "4", pods: "40" });
  expect(s.allocatable).toEqual({ cpu: "3500m", memory: "6656Mi", "ephemeral-storage": "70Gi", pods: "40" });
  // a zero threshold is no threshold; a percentage is of capacity
  const none = nodeAgentOptions({ ...defaults, "hostname-override": "n1", "eviction-hard": "memory.available<0,nodefs.available<50%" });
  expect(nodeStatus(none, facts, undefined, new Date()).allocatable).toMatchObject({ memory: "8Gi", "ephemeral-storage": "50Gi" });
});

test("reservation and eviction flags are refused as upstream refuses them", () => {
  const bad = (flags: Record<string, string>) => { try { nodeAgentOptions({ ...defaults, ...flags }); return ""; } catch (e) { return (e as Error).message; } };
  expect(bad({ "kube-reserved": "gpu=1" })).toContain("gpu is not a supported resource");
  expect(bad({ "system-reserved": "memory=-1Gi" })).toContain("cannot be negative");
  expect(bad({ "eviction-hard": "memory.available>1Gi" })).toContain("invalid eviction threshold syntax");
  expect(bad({ "eviction-hard": "disk.available<1Gi" })).toContain("unsupported eviction signal disk.available");
  expect(bad({ "eviction-hard": "nodefs.available<120%" })).toContain("must be >= 0% and <= 100%");
  expect(bad({ "eviction-soft": "memory.available<1Gi" })).toBe("grace period must be specified for the soft eviction threshold memory.available");
  expect(bad({ "image-gc-low-threshold": "90" })).toContain("must be less than imageGCHighThresholdPercent");
  expect(bad({ "oom-score-adj": "-2000" })).toContain("--oom-score-adj");
  expect(bad({ "cpu-manager-policy": "fancy" })).toContain("must be one of none, static");
  const soft = nodeAgentOptions({ ...defaults, "eviction-soft": "memory.available<2Gi", "eviction-soft-grace-period": "memory.available=1m30s", "eviction-minimum-reclaim": "memory.available=500Mi" });
  expect(soft.evictionSoft).toEqual([{ signal: "memory.available", quantity: 2 * 2 ** 30, gracePeriodMs: 90_000, minimumReclaim: { quantity: 500 * 2 ** 20 } }]);
});
