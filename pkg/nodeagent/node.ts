// The Node object this agent registers, and the status it reports (upstream's kubelet_node_status.go
// setters): labels, taints, addresses, capacity, nodeInfo and the four conditions.
import { rfc3339 } from "../client/time.ts";
import { KITE_VERSION, VERSION_INFO } from "../version.ts";
import type { HostInfo } from "./host.ts";
import type { NodeAgentOptions } from "./options.ts";

export type Obj = Record<string, any>;

/** How a process-runtime container's ID is spelled: `kite-process://<id>`. */
export const RUNTIME_SCHEME = "kite-process";

/** A byte count as resource.Quantity prints it in BinarySI: the largest exact power of 1024. */
export function binaryQuantity(bytes: number): string {
  const suffixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
  let i = 0;
  while (bytes > 0 && bytes % 1024 === 0 && i < suffixes.length - 1) { bytes /= 1024; i++; }
  return `${bytes}${suffixes[i]}`;
}

export interface NodeFacts {
  host: HostInfo;
  nodeIP: string;
  ephemeralStorageBytes: number;
  /** Appended to the Ready condition's message (as upstream appends "AppArmor enabled"): what the runtime cannot do here. */
  readyNote?: string;
}

/** The Node as first registered: metadata and spec (taints) plus the status below. */
export function initialNode(o: NodeAgentOptions, f: NodeFacts, now: Date): Obj {
  const node: Obj = {
    apiVersion: "v1", kind: "Node",
    metadata: {
      name: o.nodeName,
      labels: {
        ...o.nodeLabels,
        "kubernetes.io/hostname": o.nodeName,
        "kubernetes.io/os": f.host.operatingSystem,
        "kubernetes.io/arch": f.host.architecture,
        "beta.kubernetes.io/os": f.host.operatingSystem,
        "beta.kubernetes.io/arch": f.host.architecture,
      },
      // upstream's kubelet marks itself as the node's controller of attach/detach
      annotations: { "volumes.kubernetes.io/controller-managed-attach-detach": "true" },
    },
    spec: o.registerWithTaints.length ? { taints: o.registerWithTaints } : {},
  };
  node.status = nodeStatus(o, f, undefined, now);
  return node;
}

/** The conditions this agent reports, in upstream's order, with its reasons and messages. */
const CONDITIONS: [type: string, status: string, reason: string, message: string][] = [
  ["MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
  ["DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
  ["PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"],
  ["Ready", "True", "KubeletReady", "kubelet is posting ready status"],
];

/**
 * The status to report now. Conditions keep their lastTransitionTime from `previous` while their status
 * holds; every heartbeat time is `now`.
 */
export function nodeStatus(o: NodeAgentOptions, f: NodeFacts, previous: Obj | undefined, now: Date): Obj {
  const t = rfc3339(now);
  const capacity = {
    cpu: String(f.host.cpus),
    "ephemeral-storage": binaryQuantity(f.ephemeralStorageBytes),
    memory: binaryQuantity(f.host.memoryBytes),
    pods: String(o.maxPods),
  };
  const before = new Map<string, Obj>((previous?.conditions ?? []).map((c: Obj) => [c.type, c]));
  const conditions = CONDITIONS.map(([type, status, reason, message]) => {
    const old = before.get(type);
    if (type === "Ready" && f.readyNote) message = `${message}. ${f.readyNote}`;
    return { type, status, lastHeartbeatTime: t, lastTransitionTime: old?.status === status ? old.lastTransitionTime : t, reason, message };
  });
  return {
    capacity,
    allocatable: { ...capacity },
    conditions,
    addresses: [{ type: "InternalIP", address: f.nodeIP }, { type: "Hostname", address: o.nodeName }],
    daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
    nodeInfo: {
      machineID: f.host.machineID,
      systemUUID: f.host.systemUUID,
      bootID: f.host.bootID,
      kernelVersion: f.host.kernelVersion,
      osImage: f.host.osImage,
      containerRuntimeVersion: `${RUNTIME_SCHEME}://${KITE_VERSION}`,
      kubeletVersion: VERSION_INFO.gitVersion,
      kubeProxyVersion: VERSION_INFO.gitVersion,
      operatingSystem: f.host.operatingSystem,
      architecture: f.host.architecture,
    },
  };
}

/** Two statuses equal but for heartbeat times: nothing to write unless the report is due. */
export function sameStatus(a: Obj | undefined, b: Obj): boolean {
  if (!a) return false;
  const strip = (s: Obj) => ({ ...s, conditions: (s.conditions ?? []).map(({ lastHeartbeatTime: _, ...c }: Obj) => c) });
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}
