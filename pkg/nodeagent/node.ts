// The Node object this agent registers, and the status it reports (upstream's kubelet_node_status.go
// setters): labels, taints, addresses, capacity, nodeInfo and the four conditions.
import { rfc3339 } from "../client/time.ts";
import { KITE_VERSION, VERSION_INFO } from "../version.ts";
import { thresholdValue } from "./config/thresholds.ts";
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

/** Cores as resource.Quantity prints them: whole cores plainly, else in millicores. */
export function milliQuantity(cores: number): string {
  const milli = Math.round(cores * 1000);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Resources as a Node's status spells them. */
const resourceList = (r: Resources) => ({
  cpu: milliQuantity(r.cpu), "ephemeral-storage": binaryQuantity(r["ephemeral-storage"]), memory: binaryQuantity(r.memory), pods: String(r.pods),
});

/** The node's resources in base units (cores, bytes, pods). */
export interface Resources { cpu: number; memory: number; "ephemeral-storage": number; pods: number }

/** What the host has; pods are --max-pods, or fewer with --pods-per-core. */
export function capacityOf(o: NodeAgentOptions, f: NodeFacts): Resources {
  const perCore = o.podsPerCore > 0 ? o.podsPerCore * f.host.cpus : Infinity;
  return { cpu: f.host.cpus, memory: f.host.memoryBytes, "ephemeral-storage": f.ephemeralStorageBytes, pods: Math.min(o.maxPods, perCore) };
}

/**
 * What pods may use: capacity less --kube-reserved, --system-reserved and the hard eviction thresholds of
 * memory and the node's filesystem (upstream's node allocatable), never below zero.
 */
export function allocatableOf(o: NodeAgentOptions, cap: Resources): Resources {
  const hard = (signal: string, capacity: number) => {
    const t = o.evictionHard.find((x) => x.signal === signal);
    return t ? thresholdValue(t, capacity) : 0;
  };
  const minus = (name: "cpu" | "memory" | "ephemeral-storage", eviction = 0) =>
    Math.max(0, cap[name] - (o.kubeReserved[name] ?? 0) - (o.systemReserved[name] ?? 0) - eviction);
  return {
    cpu: minus("cpu"),
    memory: Math.floor(minus("memory", hard("memory.available", cap.memory))),
    "ephemeral-storage": Math.floor(minus("ephemeral-storage", hard("nodefs.available", cap["ephemeral-storage"]))),
    pods: cap.pods,
  };
}

export interface NodeFacts {
  host: HostInfo;
  nodeIP: string;
  /** Where the agent's main port listens: the API server reaches it there (pods/log). */
  kubeletPort: number;
  ephemeralStorageBytes: number;
  /** The pressure conditions the eviction manager has on. */
  pressure?: Set<string>;
  /** What the node runs without (e.g. pods on the host's network), appended to Ready's message as upstream appends "AppArmor enabled". */
  readyNotes?: string[];
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
    spec: {
      ...(o.registerWithTaints.length ? { taints: o.registerWithTaints } : {}),
      ...(o.providerID ? { providerID: o.providerID } : {}),
    },
  };
  node.status = nodeStatus(o, f, undefined, now);
  return node;
}

/** The conditions this agent reports, in upstream's order: [type, when off, when on] with reasons and messages. */
const CONDITIONS: [type: string, off: [string, string], on: [string, string]][] = [
  ["MemoryPressure", ["KubeletHasSufficientMemory", "kubelet has sufficient memory available"], ["KubeletHasInsufficientMemory", "kubelet has insufficient memory available"]],
  ["DiskPressure", ["KubeletHasNoDiskPressure", "kubelet has no disk pressure"], ["KubeletHasDiskPressure", "kubelet has disk pressure"]],
  ["PIDPressure", ["KubeletHasSufficientPID", "kubelet has sufficient PID available"], ["KubeletHasInsufficientPID", "kubelet has insufficient PID available"]],
];

/**
 * The status to report now. Conditions keep their lastTransitionTime from `previous` while their status
 * holds; every heartbeat time is `now`.
 */
export function nodeStatus(o: NodeAgentOptions, f: NodeFacts, previous: Obj | undefined, now: Date): Obj {
  const t = rfc3339(now);
  const cap = capacityOf(o, f);
  const capacity = resourceList(cap);
  const allocatable = resourceList(allocatableOf(o, cap));
  const before = new Map<string, Obj>((previous?.conditions ?? []).map((c: Obj) => [c.type, c]));
  const condition = (type: string, status: string, reason: string, message: string) => {
    const old = before.get(type);
    if (type === "Ready") message = [message, ...(f.readyNotes ?? [])].join(". ");
    return { type, status, lastHeartbeatTime: t, lastTransitionTime: old?.status === status ? old.lastTransitionTime : t, reason, message };
  };
  const conditions = [
    ...CONDITIONS.map(([type, off, on]) => (f.pressure?.has(type) ? condition(type, "True", ...on) : condition(type, "False", ...off))),
    condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
  ];
  return {
    capacity,
    allocatable,
    conditions,
    addresses: [{ type: "InternalIP", address: f.nodeIP }, { type: "Hostname", address: o.nodeName }],
    daemonEndpoints: { kubeletEndpoint: { Port: f.kubeletPort } },
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

/** The same conditions (type, status, reason, message), whatever their times. */
export function sameConditions(a: Obj[] | undefined, b: Obj[]): boolean {
  const key = (cs: Obj[] | undefined) => JSON.stringify((cs ?? []).map((c) => [c.type, c.status, c.reason, c.message]).sort());
  return key(a) === key(b);
}

/** Two statuses equal but for heartbeat times: nothing to write unless the report is due. */
export function sameStatus(a: Obj | undefined, b: Obj): boolean {
  if (!a) return false;
  const strip = (s: Obj) => ({ ...s, conditions: (s.conditions ?? []).map(({ lastHeartbeatTime: _, ...c }: Obj) => c) });
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}
