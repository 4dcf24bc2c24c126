// The scheduler's pod informer transform: what it keeps is what scheduling reads (the pod places and
// counts the same), what it drops is what nothing reads; and the disk-count filters skip a pod whose
// only volumes are the service account token's.
import { expect, test } from "bun:test";
import { NodeInfo, pluginNames as N, type Pod } from "../../pkg/scheduler/index.ts";
import { slimPod } from "../../pkg/scheduler/pod-transform.ts";
import { makeNode, makePod, plugin } from "../helpers/sched-fixtures.ts";

/** A pod as the API server serves it once bound: defaults, a token volume, status from the node agent. */
function servedPod(): any {
  return {
    kind: "Pod", apiVersion: "v1",
    metadata: {
      name: "p", namespace: "ns", uid: "u1", resourceVersion: "7", labels: { app: "a" },
      annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" },
      managedFields: [{ manager: "kubectl", operation: "Update" }],
      ownerReferences: [{ kind: "ReplicaSet", name: "rs", uid: "r1", controller: true }],
    },
    spec: {
      nodeName: "n", schedulerName: "default-scheduler", priority: 5, tolerations: [{ key: "k", operator: "Exists" }],
      nodeSelector: { zone: "a" }, affinity: { nodeAffinity: {} },
      containers: [{
        name: "c", image: "nginx:1.21", resources: { requests: { cpu: "100m", memory: "128Mi" } }, ports: [{ containerPort: 80, hostPort: 8080 }],
        env: [{ name: "A", value: "b" }], volumeMounts: [{ name: "tok", mountPath: "/var/run/secrets" }], terminationMessagePath: "/dev/termination-log",
      }],
      initContainers: [{ name: "i", image: "busybox", resources: { requests: { cpu: "1" } }, command: ["true"] }],
      volumes: [
        { name: "tok", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } },
        { name: "data", persistentVolumeClaim: { claimName: "claim" } },
      ],
    },
    status: {
      phase: "Running", startTime: "2026-01-01T00:00:00Z", podIP: "10.0.0.1", qosClass: "Burstable",
      conditions: [{ type: "PodScheduled", status: "True" }, { type: "Ready", status: "True" }],
      containerStatuses: [{ name: "c", ready: true, restartCount: 0 }],
    },
  };
}

test("slimPod keeps every field scheduling reads and drops the rest", () => {
  const p = slimPod(servedPod());
  expect(p).toEqual({
    kind: "Pod", apiVersion: "v1",
    metadata: { name: "p", namespace: "ns", uid: "u1", resourceVersion: "7", labels: { app: "a" }, ownerReferences: [{ kind: "ReplicaSet", name: "rs", uid: "r1", controller: true }] },
    spec: {
      nodeName: "n", schedulerName: "default-scheduler", priority: 5, tolerations: [{ key: "k", operator: "Exists" }],
      nodeSelector: { zone: "a" }, affinity: { nodeAffinity: {} },
      containers: [{ name: "c", image: "nginx:1.21", resources: { requests: { cpu: "100m", memory: "128Mi" } }, ports: [{ containerPort: 80, hostPort: 8080 }] }],
      initContainers: [{ name: "i", image: "busybox", resources: { requests: { cpu: "1" } } }],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: "claim" } }],
    },
    status: { phase: "Running", startTime: "2026-01-01T00:00:00Z", conditions: [{ type: "PodScheduled", status: "True" }] },
  });
});

test("a slimmed pod counts on its node as the whole pod does (requests, init containers, host ports)", () => {
  const whole = new NodeInfo(makeNode("n"), servedPod() as Pod);
  const slim = new NodeInfo(makeNode("n"), slimPod(servedPod()) as Pod);
  for (const f of ["requestedMilliCPU", "requestedMemory", "nonZeroRequestedMilliCPU", "nonZeroRequestedMemory", "numPods"] as const) {
    expect(slim[f]).toBe(whole[f]);
  }
  expect(slim.usedPorts.conflicts(undefined, "TCP", 8080)).toBe(true);
});

test("a pod whose only volume is the service account token's has no volumes the disk-count filters read", () => {
  const tokenOnly = slimPod({ ...servedPod(), spec: { ...servedPod().spec, volumes: [servedPod().spec.volumes[0]] } });
  expect(tokenOnly.spec.volumes).toBeUndefined();
  const withToken = makePod("q", { spec: { volumes: [{ name: "tok", projected: { sources: [] } }] as any } });
  const withDisk = makePod("r", { spec: { volumes: [{ name: "d", awsElasticBlockStore: { volumeID: "v" } }] as any } });
  const withClaim = makePod("s", { spec: { volumes: [{ name: "d", persistentVolumeClaim: { claimName: "c" } }] as any } });
  for (const name of [N.EBSLimits, N.GCEPDLimits, N.AzureDiskLimits]) expect(plugin(name).filterSkips(withToken)).toBe(true);
  expect(plugin(N.EBSLimits).filterSkips(withDisk)).toBe(false);
  expect(plugin(N.GCEPDLimits).filterSkips(withDisk)).toBe(true);
  expect(plugin(N.GCEPDLimits).filterSkips(withClaim)).toBe(false);
});
