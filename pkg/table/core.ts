// Printers for the core ("") group, after upstream's pkg/printers/internalversion (v1.21).
import type { Obj } from "../registry/types.ts";
import {
  ageColumn, containerCells, formatLabels, int, joinHostPort, memo, nameColumn, quantity, str, wide,
  type Printers,
} from "./columns.ts";
import { parseTime, since } from "./duration.ts";

// ---- pods ----

interface PodSummary { ready: string; status: string; restarts: number }

/** READY, STATUS and RESTARTS as upstream's printPod computes them. */
export const podSummary = memo((pod: Obj): PodSummary => {
  const spec = pod.spec ?? {};
  const st = pod.status ?? {};
  const total = (spec.containers ?? []).length;
  let ready = 0;
  let restarts = 0;
  let reason: string = st.reason || st.phase || "";

  let initializing = false;
  const initStatuses: Obj[] = st.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i];
    const state = c.state ?? {};
    restarts += c.restartCount ?? 0;
    if (state.terminated && (state.terminated.exitCode ?? 0) === 0) continue;
    if (state.terminated) {
      const t = state.terminated;
      reason = t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode ?? 0}`;
    } else if (state.waiting?.reason && state.waiting.reason !== "PodInitializing") {
      reason = `Init:${state.waiting.reason}`;
    } else {
      reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const statuses: Obj[] = st.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      const state = c.state ?? {};
      restarts += c.restartCount ?? 0;
      if (state.waiting?.reason) reason = state.waiting.reason;
      else if (state.terminated?.reason) reason = state.terminated.reason;
      else if (state.terminated) reason = state.terminated.signal ? `Signal:${state.terminated.signal}` : `ExitCode:${state.terminated.exitCode ?? 0}`;
      else if (c.ready && state.running) {
        hasRunning = true;
        ready++;
      }
    }
    // A pod whose last container completed while another still runs is shown as running.
    if (reason === "Completed" && hasRunning) {
      const podReady = (st.conditions ?? []).some((c: Obj) => c.type === "Ready" && c.status === "True");
      reason = podReady ? "Running" : "NotReady";
    }
  }

  if (pod.metadata?.deletionTimestamp) reason = st.reason === "NodeLost" ? "Unknown" : "Terminating";
  return { ready: `${ready}/${total}`, status: reason, restarts };
});

const none = (s: unknown) => (typeof s === "string" && s !== "" ? s : "<none>");

function podIP(pod: Obj): string {
  return none(pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP);
}

function readinessGates(pod: Obj): string {
  const gates: Obj[] = pod.spec?.readinessGates ?? [];
  if (!gates.length) return "<none>";
  const conds: Obj[] = pod.status?.conditions ?? [];
  const met = gates.filter((g) => conds.find((c) => c.type === g.conditionType)?.status === "True").length;
  return `${met}/${gates.length}`;
}

function podConditions(pod: Obj): Obj[] | undefined {
  switch (pod.status?.phase) {
    case "Succeeded": return [{ type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." }];
    case "Failed": return [{ type: "Completed", status: "True", reason: "Failed", message: "The pod failed." }];
  }
  return undefined;
}

// ---- services ----

function externalIP(svc: Obj): string {
  const spec = svc.spec ?? {};
  const ext: string[] = spec.externalIPs ?? [];
  switch (spec.type ?? "ClusterIP") {
    case "ClusterIP":
    case "NodePort":
      return ext.length ? ext.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = loadBalancerIngress(svc.status?.loadBalancer);
      if (ext.length) return [...(lb ? lb.split(",") : []), ...ext].join(",");
      return lb || "<pending>";
    }
    case "ExternalName":
      return spec.externalName ?? "";
  }
  return "<unknown>";
}

/** Load-balancer ingress points (IP, else hostname), de-duplicated and sorted. */
export function loadBalancerIngress(lb: Obj | undefined): string {
  const set = new Set<string>();
  for (const i of lb?.ingress ?? []) {
    if (i.ip) set.add(i.ip);
    else if (i.hostname) set.add(i.hostname);
  }
  return [...set].sort().join(",");
}

/** `80/TCP,443:30443/TCP` (port, node port when set, protocol). */
export function servicePorts(ports: Obj[] | undefined): string {
  const s = (ports ?? []).map((p) => (p.nodePort > 0 ? `${p.port}:${p.nodePort}/${p.protocol ?? "TCP"}` : `${p.port}/${p.protocol ?? "TCP"}`)).join(",");
  return s || "<none>";
}

// ---- nodes ----

function nodeStatus(node: Obj): string {
  const ready = (node.status?.conditions ?? []).find((c: Obj) => c.type === "Ready");
  const status = [ready ? (ready.status === "True" ? "Ready" : "NotReady") : "Unknown"];
  if (node.spec?.unschedulable) status.push("SchedulingDisabled");
  return status.join(",");
}

function nodeRoles(node: Obj): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries<string>(node.metadata?.labels ?? {})) {
    if (k.startsWith("node-role.kubernetes.io/")) {
      const role = k.slice("node-role.kubernetes.io/".length);
      if (role) roles.add(role);
    } else if (k === "kubernetes.io/role" && v) roles.add(v);
  }
  return [...roles].sort().join(",") || "<none>";
}

const nodeAddress = (node: Obj, type: string) => (node.status?.addresses ?? []).find((a: Obj) => a.type === type)?.address ?? "<none>";
const orUnknown = (s: unknown) => (typeof s === "string" && s !== "" ? s : "<unknown>");

// ---- endpoints ----

function formatEndpoints(ep: Obj): string {
  const subsets: Obj[] = ep.subsets ?? [];
  if (!subsets.length) return "<none>";
  const max = 3;
  const list: string[] = [];
  let count = 0;
  for (const ss of subsets) {
    const addrs: Obj[] = ss.addresses ?? [];
    const ports: Obj[] = ss.ports ?? [];
    if (!ports.length) {
      count += addrs.length;
      for (const a of addrs) if (list.length < max) list.push(a.ip);
      continue;
    }
    for (const p of ports) {
      count += addrs.length;
      for (const a of addrs) if (list.length < max) list.push(joinHostPort(a.ip, p.port));
    }
  }
  const ret = list.join(",");
  return count > max ? `${ret} + ${count - max} more...` : ret;
}

// ---- events ----

/** Event times: first and last seen, with the series and eventTime fallbacks of the newer Events API. */
const eventTimes = memo((ev: Obj, { now }): { first: string; last: string; count: number } => {
  const first = parseTime(ev.firstTimestamp) !== undefined ? since(ev.firstTimestamp, now) : since(ev.eventTime, now);
  let last = parseTime(ev.lastTimestamp) !== undefined ? since(ev.lastTimestamp, now) : first;
  let count: number = ev.count ?? 0;
  if (ev.series) {
    last = since(ev.series.lastObservedTime, now);
    count = ev.series.count ?? 0;
  } else if (count === 0) count = 1;
  return { first, last, count };
});

function eventObject(ev: Obj): string {
  const io = ev.involvedObject ?? {};
  const kind = String(io.kind ?? "").toLowerCase();
  return io.name ? `${kind}/${io.name}` : kind;
}

function eventSource(ev: Obj): string {
  const component = ev.source?.component || ev.reportingComponent || ev.reportingController || "";
  const host = ev.source?.host || ev.reportingInstance || "";
  return host ? `${component}, ${host}` : component;
}

/** An events.k8s.io/v1 Event read with the core Event's field names. */
export function coreEvent(ev: Obj): Obj {
  if (ev.involvedObject || !(ev.regarding || ev.note !== undefined || ev.deprecatedSource || ev.deprecatedCount !== undefined)) return ev;
  const out: Obj = { ...ev };
  const renames: [string, string][] = [
    ["regarding", "involvedObject"], ["note", "message"], ["deprecatedSource", "source"],
    ["deprecatedFirstTimestamp", "firstTimestamp"], ["deprecatedLastTimestamp", "lastTimestamp"], ["deprecatedCount", "count"],
  ];
  for (const [from, to] of renames) if (from in out) out[to] = out[from];
  return out;
}

// ---- persistent volumes ----

/** Access modes as RWO,ROX,RWX,RWOP, de-duplicated in that order. */
export function accessModes(modes: string[] | undefined): string {
  const m = new Set(modes ?? []);
  const out: string[] = [];
  if (m.has("ReadWriteOnce")) out.push("RWO");
  if (m.has("ReadOnlyMany")) out.push("ROX");
  if (m.has("ReadWriteMany")) out.push("RWX");
  if (m.has("ReadWriteOncePod")) out.push("RWOP");
  return out.join(",");
}

const BETA_CLASS = "volume.beta.kubernetes.io/storage-class";
const storageClassOf = (o: Obj): string => o.metadata?.annotations?.[BETA_CLASS] ?? o.spec?.storageClassName ?? "";
const terminatingPhase = (o: Obj): string => (o.metadata?.deletionTimestamp ? "Terminating" : o.status?.phase ?? "");
const volumeMode = (o: Obj): string => o.spec?.volumeMode ?? "<unset>";

// ---- resource quotas ----

const quotaColumns = memo((q: Obj): { request: string; limit: string } => {
  const hard: Record<string, unknown> = q.status?.hard ?? {};
  const used: Record<string, unknown> = q.status?.used ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const r of Object.keys(hard).sort()) {
    const entry = `${r}: ${quantity(used[r])}/${quantity(hard[r])}`;
    (r.split(".").length > 1 && r.split(".")[0] === "limits" ? limit : request).push(entry);
  }
  return { request: request.join(", "), limit: limit.join(", ") };
});

// ---- the printers ----

const templateSpec = (o: Obj) => o.spec?.template?.spec;

export const CORE: Printers = {
  Pod: {
    columns: [
      nameColumn,
      str("Ready", "Ready containers out of all containers in the pod.", (o, c) => podSummary(o, c).ready),
      str("Status", "The aggregate status of the pod's containers.", (o, c) => podSummary(o, c).status),
      int("Restarts", "How many times the pod's containers have restarted.", (o, c) => podSummary(o, c).restarts),
      ageColumn,
      wide(str("IP", "The pod's IP address.", podIP)),
      wide(str("Node", "The node the pod is bound to.", (o) => none(o.spec?.nodeName))),
      wide(str("Nominated Node", "The node nominated by preemption for this pod.", (o) => none(o.status?.nominatedNodeName))),
      wide(str("Readiness Gates", "Readiness gates met out of those declared.", readinessGates)),
    ],
    conditions: podConditions,
  },
  PodTemplate: {
    columns: [
      nameColumn,
      str("Containers", "Names of the containers in the template.", (o) => containerCells(o.template?.spec).names),
      str("Images", "Images of the containers in the template.", (o) => containerCells(o.template?.spec).images),
      str("Pod Labels", "Labels of the pod template.", (o) => formatLabels(o.template?.metadata?.labels)),
    ],
  },
  ReplicationController: {
    columns: [
      nameColumn,
      int("Desired", "Desired number of replicas.", (o) => o.spec?.replicas ?? 1),
      int("Current", "Most recently observed number of replicas.", (o) => o.status?.replicas ?? 0),
      int("Ready", "Number of ready replicas.", (o) => o.status?.readyReplicas ?? 0),
      ageColumn,
      wide(str("Containers", "Names of the containers in the template.", (o) => containerCells(templateSpec(o)).names)),
      wide(str("Images", "Images of the containers in the template.", (o) => containerCells(templateSpec(o)).images)),
      wide(str("Selector", "Label selector of the pods.", (o) => formatLabels(o.spec?.selector))),
    ],
  },
  Service: {
    columns: [
      nameColumn,
      str("Type", "How the service is exposed.", (o) => o.spec?.type ?? "ClusterIP"),
      str("Cluster-IP", "The service's cluster IP.", (o) => none(o.spec?.clusterIPs?.[0] ?? o.spec?.clusterIP)),
      str("External-IP", "External addresses of the service.", externalIP),
      str("Port(s)", "Ports exposed by the service.", (o) => servicePorts(o.spec?.ports)),
      ageColumn,
      wide(str("Selector", "Label selector of the service's pods.", (o) => formatLabels(o.spec?.selector))),
    ],
  },
  Endpoints: {
    columns: [nameColumn, str("Endpoints", "Addresses and ports of the endpoints.", formatEndpoints), ageColumn],
  },
  Node: {
    columns: [
      nameColumn,
      str("Status", "The node's readiness.", nodeStatus),
      str("Roles", "The node's roles, from its labels.", nodeRoles),
      ageColumn,
      str("Version", "Kubelet version.", (o) => o.status?.nodeInfo?.kubeletVersion ?? ""),
      wide(str("Internal-IP", "The node's internal IP address.", (o) => nodeAddress(o, "InternalIP"))),
      wide(str("External-IP", "The node's external IP address.", (o) => nodeAddress(o, "ExternalIP"))),
      wide(str("OS-Image", "Operating system image.", (o) => orUnknown(o.status?.nodeInfo?.osImage))),
      wide(str("Kernel-Version", "Kernel version.", (o) => orUnknown(o.status?.nodeInfo?.kernelVersion))),
      wide(str("Container-Runtime", "Container runtime and version.", (o) => orUnknown(o.status?.nodeInfo?.containerRuntimeVersion))),
    ],
  },
  Event: {
    columns: [
      str("Last Seen", "Time since the event was last seen.", (o, c) => eventTimes(o, c).last),
      str("Type", "Type of the event (Normal, Warning).", (o) => o.type ?? ""),
      str("Reason", "Short reason for the event.", (o) => o.reason ?? ""),
      str("Object", "The object the event is about.", eventObject),
      wide(str("Subobject", "Field path within the object.", (o) => o.involvedObject?.fieldPath ?? "")),
      wide(str("Source", "The component reporting the event.", eventSource)),
      str("Message", "Description of the event.", (o) => String(o.message ?? "").trim()),
      wide(str("First Seen", "Time since the event was first seen.", (o, c) => eventTimes(o, c).first)),
      wide(str("Count", "How many times the event occurred.", (o, c) => eventTimes(o, c).count)),
      wide(nameColumn),
    ],
    normalize: coreEvent,
  },
  Namespace: {
    columns: [nameColumn, str("Status", "The namespace's phase.", (o) => o.status?.phase ?? ""), ageColumn],
  },
  Secret: {
    columns: [
      nameColumn,
      str("Type", "Type of the secret.", (o) => o.type ?? ""),
      str("Data", "Number of data entries.", (o) => Object.keys(o.data ?? {}).length),
      ageColumn,
    ],
  },
  ServiceAccount: {
    columns: [nameColumn, str("Secrets", "Number of secrets of the account.", (o) => (o.secrets ?? []).length), ageColumn],
  },
  ConfigMap: {
    columns: [
      nameColumn,
      str("Data", "Number of data entries.", (o) => Object.keys(o.data ?? {}).length + Object.keys(o.binaryData ?? {}).length),
      ageColumn,
    ],
  },
  PersistentVolume: {
    columns: [
      nameColumn,
      str("Capacity", "Storage capacity.", (o) => quantity(o.spec?.capacity?.storage)),
      str("Access Modes", "Access modes.", (o) => accessModes(o.spec?.accessModes)),
      str("Reclaim Policy", "What happens to the volume when released.", (o) => o.spec?.persistentVolumeReclaimPolicy ?? ""),
      str("Status", "The volume's phase.", terminatingPhase),
      str("Claim", "The claim bound to the volume.", (o) => (o.spec?.claimRef ? `${o.spec.claimRef.namespace ?? ""}/${o.spec.claimRef.name ?? ""}` : "")),
      str("StorageClass", "Storage class of the volume.", storageClassOf),
      str("Reason", "Reason for the volume's phase.", (o) => o.status?.reason ?? ""),
      ageColumn,
      wide(str("VolumeMode", "Block or Filesystem.", volumeMode)),
    ],
  },
  PersistentVolumeClaim: {
    columns: [
      nameColumn,
      str("Status", "The claim's phase.", terminatingPhase),
      str("Volume", "The volume bound to the claim.", (o) => o.spec?.volumeName ?? ""),
      str("Capacity", "Capacity of the bound volume.", (o) => (o.spec?.volumeName ? quantity(o.status?.capacity?.storage) : "")),
      str("Access Modes", "Access modes of the bound volume.", (o) => (o.spec?.volumeName ? accessModes(o.status?.accessModes) : "")),
      str("StorageClass", "Storage class of the claim.", storageClassOf),
      ageColumn,
      wide(str("VolumeMode", "Block or Filesystem.", volumeMode)),
    ],
  },
  ResourceQuota: {
    columns: [
      nameColumn,
      ageColumn,
      str("Request", "Used and hard amounts of the non-limit resources.", (o, c) => quotaColumns(o, c).request),
      str("Limit", "Used and hard amounts of the limits.* resources.", (o, c) => quotaColumns(o, c).limit),
    ],
  },
  ComponentStatus: {
    columns: [
      nameColumn,
      str("Status", "Status of the component conditions", (o) => componentHealth(o).status),
      str("Message", "Message of the component conditions", (o) => componentHealth(o).message),
      str("Error", "Error of the component conditions", (o) => componentHealth(o).error),
    ],
  },
};

/** What the Healthy condition of a ComponentStatus says; Unknown without one. */
function componentHealth(o: Obj): { status: string; message: string; error: string } {
  const c = (o.conditions ?? []).find((x: Obj) => x.type === "Healthy");
  if (!c) return { status: "Unknown", message: "", error: "" };
  return { status: c.status === "True" ? "Healthy" : "Unhealthy", message: c.message ?? "", error: c.error ?? "" };
}
