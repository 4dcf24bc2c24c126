// Printers for rbac, coordination, scheduling, flowcontrol, policy, autoscaling, node, certificates and
// admission registration, after upstream's pkg/printers/internalversion (v1.21).
import type { Obj } from "../registry/types.ts";
import { ageColumn, bool, int, intOrString, nameColumn, str, wide, type Column, type Printers } from "./columns.ts";

// ---- rbac ----

/** Users, groups and service accounts (`ns/name`) of a binding's subjects. */
function subjects(b: Obj, kind: "User" | "Group" | "ServiceAccount"): string {
  return (b.subjects ?? [])
    .filter((s: Obj) => s.kind === kind)
    .map((s: Obj) => (kind === "ServiceAccount" ? `${s.namespace ?? ""}/${s.name ?? ""}` : s.name ?? ""))
    .join(", ");
}

const bindingColumns: Column[] = [
  nameColumn,
  str("Role", "The role the binding grants.", (o) => `${o.roleRef?.kind ?? ""}/${o.roleRef?.name ?? ""}`),
  ageColumn,
  wide(str("Users", "Users bound.", (o) => subjects(o, "User"))),
  wide(str("Groups", "Groups bound.", (o) => subjects(o, "Group"))),
  wide(str("ServiceAccounts", "Service accounts bound.", (o) => subjects(o, "ServiceAccount"))),
];

// ---- autoscaling ----

/** The metrics of an HPA, v2 shape; autoscaling/v1's CPU target is read as a Resource metric. */
function hpaMetrics(hpa: Obj): { specs: Obj[]; statuses: Obj[] } {
  if (hpa.spec?.metrics) return { specs: hpa.spec.metrics, statuses: hpa.status?.currentMetrics ?? [] };
  const target = hpa.spec?.targetCPUUtilizationPercentage;
  if (target === undefined || target === null) return { specs: [], statuses: [] };
  const current = hpa.status?.currentCPUUtilizationPercentage;
  return {
    specs: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: target } } }],
    statuses: current === undefined || current === null ? [] : [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: current } } }],
  };
}

const q = (v: unknown) => (v === undefined || v === null ? "0" : String(v));
const pct = (v: unknown) => (v === undefined || v === null ? undefined : `${v}%`);

/** One metric as `current/target`, `(avg)` for averaged object and external targets. */
function formatMetric(spec: Obj, status: Obj | undefined): string {
  switch (spec.type) {
    case "External":
    case "Object": {
      const key = spec.type === "External" ? "external" : "object";
      const target = spec[key]?.target ?? {};
      const cur = status?.[key]?.current;
      if (target.averageValue !== undefined) return `${cur?.averageValue !== undefined ? q(cur.averageValue) : "<unknown>"}/${q(target.averageValue)} (avg)`;
      return `${cur ? q(cur.value) : "<unknown>"}/${q(target.value)}`;
    }
    case "Pods":
      return `${status?.pods ? q(status.pods.current?.averageValue) : "<unknown>"}/${q(spec.pods?.target?.averageValue)}`;
    case "Resource":
    case "ContainerResource": {
      const key = spec.type === "Resource" ? "resource" : "containerResource";
      const target = spec[key]?.target ?? {};
      const cur = status?.[key]?.current;
      if (target.averageValue !== undefined) return `${status?.[key] ? q(cur?.averageValue) : "<unknown>"}/${q(target.averageValue)}`;
      return `${pct(cur?.averageUtilization) ?? "<unknown>"}/${pct(target.averageUtilization) ?? "<auto>"}`;
    }
  }
  return "<unknown type>";
}

/** Up to two metrics, then ` + N more...` (upstream's formatHPAMetrics). */
function hpaTargets(hpa: Obj): string {
  const { specs, statuses } = hpaMetrics(hpa);
  if (!specs.length) return "<none>";
  const list = specs.map((s, i) => formatMetric(s, statuses[i]));
  const max = 2;
  return list.length > max ? `${list.slice(0, max).join(", ")} + ${list.length - max} more...` : list.join(", ");
}

// ---- certificates ----

function csrCondition(csr: Obj): string {
  const types = new Set((csr.status?.conditions ?? []).map((c: Obj) => c.type));
  let s = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) s += ",Failed";
  if (csr.status?.certificate) s += ",Issued";
  return s;
}

const webhooks: Column[] = [nameColumn, int("Webhooks", "Number of webhooks in the configuration.", (o) => (o.webhooks ?? []).length), ageColumn];

export const CLUSTER: Printers = {
  "RoleBinding.rbac.authorization.k8s.io": { columns: bindingColumns },
  "ClusterRoleBinding.rbac.authorization.k8s.io": { columns: bindingColumns },
  "Lease.coordination.k8s.io": {
    columns: [nameColumn, str("Holder", "Identity of the lease holder.", (o) => o.spec?.holderIdentity ?? ""), ageColumn],
  },
  "PriorityClass.scheduling.k8s.io": {
    columns: [
      nameColumn,
      int("Value", "Priority of pods using the class.", (o) => o.value ?? 0),
      bool("Global-Default", "Whether the class is the default for pods without one.", (o) => o.globalDefault ?? false),
      ageColumn,
    ],
  },
  "FlowSchema.flowcontrol.apiserver.k8s.io": {
    columns: [
      nameColumn,
      str("PriorityLevel", "The priority level its requests are served at.", (o) => o.spec?.priorityLevelConfiguration?.name ?? ""),
      int("MatchingPrecedence", "Order among schemas, lowest first.", (o) => o.spec?.matchingPrecedence ?? 0),
      str("DistinguisherMethod", "How its requests are told apart into flows.", (o) => o.spec?.distinguisherMethod?.type ?? "<none>"),
      ageColumn,
      str("MissingPL", "Whether its priority level is missing (the Dangling condition).", (o) => (o.status?.conditions ?? []).find((c: Obj) => c.type === "Dangling")?.status ?? "?"),
    ],
  },
  "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io": {
    columns: [
      nameColumn,
      str("Type", "Exempt or Limited.", (o) => o.spec?.type ?? ""),
      str("AssuredConcurrencyShares", "Its share of the server's concurrency.", (o) => String(o.spec?.limited?.assuredConcurrencyShares ?? "<none>")),
      str("Queues", "Number of queues.", (o) => String(o.spec?.limited?.limitResponse?.queuing?.queues ?? "<none>")),
      str("HandSize", "Queues dealt to each flow.", (o) => String(o.spec?.limited?.limitResponse?.queuing?.handSize ?? "<none>")),
      str("QueueLengthLimit", "Requests one queue holds.", (o) => String(o.spec?.limited?.limitResponse?.queuing?.queueLengthLimit ?? "<none>")),
      ageColumn,
    ],
  },
  "PodDisruptionBudget.policy": {
    columns: [
      nameColumn,
      str("Min Available", "Pods that must stay available.", (o) => (o.spec?.minAvailable !== undefined ? intOrString(o.spec.minAvailable) : "N/A")),
      str("Max Unavailable", "Pods that may be unavailable.", (o) => (o.spec?.maxUnavailable !== undefined ? intOrString(o.spec.maxUnavailable) : "N/A")),
      int("Allowed Disruptions", "Pods that may be disrupted now.", (o) => o.status?.disruptionsAllowed ?? 0),
      ageColumn,
    ],
  },
  // The scale subresource's table (autoscaling/v1 Scale), as later upstream releases print it.
  "Scale.autoscaling": {
    columns: [
      nameColumn,
      int("Desired", "Desired number of instances for the scaled object.", (o) => o.spec?.replicas ?? 0),
      int("Available", "Actual number of observed instances of the scaled object.", (o) => o.status?.replicas ?? 0),
      ageColumn,
    ],
  },
  "HorizontalPodAutoscaler.autoscaling": {
    columns: [
      nameColumn,
      str("Reference", "The scaled object.", (o) => `${o.spec?.scaleTargetRef?.kind ?? ""}/${o.spec?.scaleTargetRef?.name ?? ""}`),
      str("Targets", "Current and target metric values.", hpaTargets),
      str("MinPods", "Lower replica limit.", (o) => (o.spec?.minReplicas !== undefined && o.spec?.minReplicas !== null ? String(o.spec.minReplicas) : "<unset>")),
      str("MaxPods", "Upper replica limit.", (o) => o.spec?.maxReplicas ?? 0),
      str("Replicas", "Current number of replicas.", (o) => o.status?.currentReplicas ?? 0),
      ageColumn,
    ],
  },
  "RuntimeClass.node.k8s.io": {
    columns: [nameColumn, str("Handler", "The container runtime handler.", (o) => o.handler ?? ""), ageColumn],
  },
  "CertificateSigningRequest.certificates.k8s.io": {
    columns: [
      nameColumn,
      ageColumn,
      str("SignerName", "The signer asked to sign.", (o) => o.spec?.signerName || "<none>"),
      str("Requestor", "The user who made the request.", (o) => o.spec?.username ?? ""),
      str("Condition", "Approval state of the request.", csrCondition),
    ],
  },
  "MutatingWebhookConfiguration.admissionregistration.k8s.io": { columns: webhooks },
  "ValidatingWebhookConfiguration.admissionregistration.k8s.io": { columns: webhooks },
};
