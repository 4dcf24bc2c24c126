// The built-in resource types, at their stable versions: one row each.
import type { ResourceDef } from "./types.ts";
import * as s from "./strategies.ts";

type Row = Omit<ResourceDef, "group" | "version" | "singular"> & { singular?: string };

/** Declare the types of one group version. */
function gv(group: string, version: string, rows: Row[]): ResourceDef[] {
  return rows.map((r) => ({ group, version, singular: r.kind.toLowerCase(), ...r }));
}

const ns = true;
const cluster = false;
const status: ResourceDef["subresources"] = ["status"];
/** The review kinds: answered on create (pkg/auth/reviews), never stored. */
const review = { verbs: ["create"] as ResourceDef["verbs"], computed: true };
const scalable: ResourceDef["subresources"] = ["status", "scale"];

export const BUILTIN: ResourceDef[] = [
  ...gv("", "v1", [
    { kind: "Namespace", plural: "namespaces", namespaced: cluster, shortNames: ["ns"], subresources: ["status", "finalize"], nameRule: "label", readYourWrites: true, strategy: s.namespace,
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"] },
    { kind: "Pod", plural: "pods", namespaced: ns, shortNames: ["po"], categories: ["all"], subresources: ["status", "binding", "eviction", "log", "exec", "attach", "portforward", "proxy"], strategy: s.pod },
    // the legacy way to bind a pod (pods/binding is the other): create-only, nothing stored (./binding.ts)
    { kind: "Binding", plural: "bindings", namespaced: ns, verbs: ["create"], computed: true },
    { kind: "Service", plural: "services", namespaced: ns, shortNames: ["svc"], categories: ["all"], subresources: ["status", "proxy"], storageResource: "services/specs", nameRule: "dns1035", strategy: s.service },
    { kind: "Endpoints", plural: "endpoints", singular: "endpoints", namespaced: ns, shortNames: ["ep"], storageResource: "services/endpoints", createOnUpdate: true },
    { kind: "ConfigMap", plural: "configmaps", namespaced: ns, shortNames: ["cm"] },
    { kind: "Secret", plural: "secrets", namespaced: ns, strategy: s.secret },
    { kind: "ServiceAccount", plural: "serviceaccounts", namespaced: ns, shortNames: ["sa"], subresources: ["token"] },
    { kind: "Node", plural: "nodes", namespaced: cluster, shortNames: ["no"], subresources: ["status", "proxy"], storageResource: "minions", strategy: s.node },
    { kind: "Event", plural: "events", namespaced: ns, shortNames: ["ev"], createOnUpdate: true, nameRule: "segment", strategy: s.event },
    { kind: "PersistentVolume", plural: "persistentvolumes", namespaced: cluster, shortNames: ["pv"], subresources: status, strategy: s.phase("Pending") },
    { kind: "PersistentVolumeClaim", plural: "persistentvolumeclaims", namespaced: ns, shortNames: ["pvc"], subresources: status, strategy: s.phase("Pending") },
    { kind: "LimitRange", plural: "limitranges", namespaced: ns, shortNames: ["limits"] },
    { kind: "ResourceQuota", plural: "resourcequotas", namespaced: ns, shortNames: ["quota"], subresources: status },
    { kind: "ReplicationController", plural: "replicationcontrollers", namespaced: ns, shortNames: ["rc"], categories: ["all"], subresources: scalable, storageResource: "controllers", generation: true, strategy: s.replicationController },
    { kind: "PodTemplate", plural: "podtemplates", namespaced: ns },
    { kind: "ComponentStatus", plural: "componentstatuses", namespaced: cluster, shortNames: ["cs"], verbs: ["get", "list"], computed: true, deprecated: { in: "1.19" } },
  ]),
  ...gv("apps", "v1", [
    { kind: "Deployment", plural: "deployments", namespaced: ns, shortNames: ["deploy"], categories: ["all"], subresources: scalable, generation: true },
    { kind: "ReplicaSet", plural: "replicasets", namespaced: ns, shortNames: ["rs"], categories: ["all"], subresources: scalable, generation: true },
    { kind: "StatefulSet", plural: "statefulsets", namespaced: ns, shortNames: ["sts"], categories: ["all"], subresources: scalable, generation: true },
    { kind: "DaemonSet", plural: "daemonsets", namespaced: ns, shortNames: ["ds"], categories: ["all"], subresources: status, generation: true },
    { kind: "ControllerRevision", plural: "controllerrevisions", namespaced: ns },
  ]),
  ...gv("batch", "v1", [
    { kind: "Job", plural: "jobs", namespaced: ns, categories: ["all"], subresources: status, generation: true, strategy: s.job },
    { kind: "CronJob", plural: "cronjobs", namespaced: ns, shortNames: ["cj"], categories: ["all"], subresources: status, generation: true },
  ]),
  ...gv("autoscaling", "v1", [
    { kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers", namespaced: ns, shortNames: ["hpa"], categories: ["all"], subresources: status, generation: true },
  ]),
  ...gv("coordination.k8s.io", "v1", [{ kind: "Lease", plural: "leases", namespaced: ns }]),
  ...gv("rbac.authorization.k8s.io", "v1", [
    { kind: "Role", plural: "roles", namespaced: ns, nameRule: "segment" },
    { kind: "RoleBinding", plural: "rolebindings", namespaced: ns, nameRule: "segment" },
    { kind: "ClusterRole", plural: "clusterroles", namespaced: cluster, nameRule: "segment" },
    { kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: cluster, nameRule: "segment" },
  ]),
  ...gv("authentication.k8s.io", "v1", [
    { kind: "TokenReview", plural: "tokenreviews", namespaced: cluster, ...review },
    { kind: "SelfSubjectReview", plural: "selfsubjectreviews", namespaced: cluster, ...review },
  ]),
  // v1beta1 TokenReview is a row of the conversion table (pkg/convert/rows)
  ...gv("authentication.k8s.io", "v1beta1", [{ kind: "SelfSubjectReview", plural: "selfsubjectreviews", namespaced: cluster, ...review }]),
  ...gv("authorization.k8s.io", "v1", [
    { kind: "SubjectAccessReview", plural: "subjectaccessreviews", namespaced: cluster, ...review },
    { kind: "LocalSubjectAccessReview", plural: "localsubjectaccessreviews", namespaced: ns, ...review },
    { kind: "SelfSubjectAccessReview", plural: "selfsubjectaccessreviews", namespaced: cluster, ...review },
    { kind: "SelfSubjectRulesReview", plural: "selfsubjectrulesreviews", namespaced: cluster, ...review },
  ]),
  ...gv("networking.k8s.io", "v1", [
    { kind: "Ingress", plural: "ingresses", namespaced: ns, shortNames: ["ing"], subresources: status, generation: true, storageResource: "ingress" },
    { kind: "IngressClass", plural: "ingressclasses", namespaced: cluster },
    { kind: "NetworkPolicy", plural: "networkpolicies", namespaced: ns, shortNames: ["netpol"], generation: true },
  ]),
  ...gv("policy", "v1", [
    { kind: "PodDisruptionBudget", plural: "poddisruptionbudgets", namespaced: ns, shortNames: ["pdb"], subresources: status, generation: true },
  ]),
  // v1.21 serves PodSecurityPolicy at policy/v1beta1 only (its hub); deprecated, removed in v1.25
  ...gv("policy", "v1beta1", [
    { kind: "PodSecurityPolicy", plural: "podsecuritypolicies", namespaced: cluster, shortNames: ["psp"], storageResource: "podsecuritypolicy", deprecated: { in: "1.21", removedIn: "1.25" } },
  ]),
  // read-your-writes: the Priority admission of pods reads the classes from the watch cache
  ...gv("scheduling.k8s.io", "v1", [{ kind: "PriorityClass", plural: "priorityclasses", namespaced: cluster, shortNames: ["pc"], readYourWrites: true, strategy: s.priorityClass }]),
  ...gv("storage.k8s.io", "v1", [
    { kind: "StorageClass", plural: "storageclasses", namespaced: cluster, shortNames: ["sc"] },
    { kind: "CSIDriver", plural: "csidrivers", namespaced: cluster },
    { kind: "CSINode", plural: "csinodes", namespaced: cluster },
    { kind: "VolumeAttachment", plural: "volumeattachments", namespaced: cluster, subresources: status },
  ]),
  ...gv("events.k8s.io", "v1", [
    { kind: "Event", plural: "events", namespaced: ns, shortNames: ["ev"], nameRule: "segment", createOnUpdate: true, codec: s.eventsV1Codec, strategy: s.eventsV1 },
  ]),
  ...gv("discovery.k8s.io", "v1", [{ kind: "EndpointSlice", plural: "endpointslices", namespaced: ns }]),
  ...gv("node.k8s.io", "v1", [{ kind: "RuntimeClass", plural: "runtimeclasses", namespaced: cluster }]),
  ...gv("certificates.k8s.io", "v1", [
    { kind: "CertificateSigningRequest", plural: "certificatesigningrequests", namespaced: cluster, shortNames: ["csr"], subresources: ["status", "approval"], nameRule: "segment", strategy: s.certificateSigningRequest },
  ]),
  ...gv("apiextensions.k8s.io", "v1", [
    { kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: cluster, shortNames: ["crd", "crds"], subresources: status, generation: true, storageResource: "apiextensions.k8s.io/customresourcedefinitions", strategy: s.customResourceDefinition },
  ]),
  ...gv("apiregistration.k8s.io", "v1", [
    { kind: "APIService", plural: "apiservices", namespaced: cluster, subresources: status, storageResource: "apiregistration.k8s.io/apiservices", categories: ["api-extensions"] },
  ]),
  // API Priority and Fairness (pkg/flowcontrol): beta in v1.21, the version upstream serves and stores
  ...gv("flowcontrol.apiserver.k8s.io", "v1beta1", [
    { kind: "FlowSchema", plural: "flowschemas", namespaced: cluster, subresources: status },
    { kind: "PriorityLevelConfiguration", plural: "prioritylevelconfigurations", namespaced: cluster, subresources: status },
  ]),
  ...gv("admissionregistration.k8s.io", "v1", [
    { kind: "MutatingWebhookConfiguration", plural: "mutatingwebhookconfigurations", namespaced: cluster, categories: ["api-extensions"] },
    { kind: "ValidatingWebhookConfiguration", plural: "validatingwebhookconfigurations", namespaced: cluster, categories: ["api-extensions"] },
  ]),
  // resource metrics, as metrics-server serves them, computed from the node agents (pkg/server/resourcemetrics/)
  ...gv("metrics.k8s.io", "v1beta1", [
    { kind: "NodeMetrics", plural: "nodes", namespaced: cluster, verbs: ["get", "list"], computed: true },
    { kind: "PodMetrics", plural: "pods", namespaced: ns, verbs: ["get", "list"], computed: true },
  ]),
];
