// The resources components name without asking discovery: enough of an ApiResource to build its paths.
export interface ResourceRef {
  group: string;
  version: string;
  /** The plural name used in URLs. */
  resource: string;
  namespaced: boolean;
  /** The kind of one object (a list's items carry none; the informer stamps it). */
  kind: string;
}

const ref = (group: string, version: string, resource: string, kind: string, namespaced = true): ResourceRef => ({ group, version, resource, kind, namespaced });

/** The built-in types the scheduler, the node agent and the controllers watch or write. */
export const RESOURCES = {
  pods: ref("", "v1", "pods", "Pod"),
  nodes: ref("", "v1", "nodes", "Node", false),
  namespaces: ref("", "v1", "namespaces", "Namespace", false),
  services: ref("", "v1", "services", "Service"),
  endpoints: ref("", "v1", "endpoints", "Endpoints"),
  configmaps: ref("", "v1", "configmaps", "ConfigMap"),
  secrets: ref("", "v1", "secrets", "Secret"),
  serviceaccounts: ref("", "v1", "serviceaccounts", "ServiceAccount"),
  replicationcontrollers: ref("", "v1", "replicationcontrollers", "ReplicationController"),
  persistentvolumes: ref("", "v1", "persistentvolumes", "PersistentVolume", false),
  persistentvolumeclaims: ref("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim"),
  resourcequotas: ref("", "v1", "resourcequotas", "ResourceQuota"),
  coreEvents: ref("", "v1", "events", "Event"),
  events: ref("events.k8s.io", "v1", "events", "Event"),
  endpointslices: ref("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice"),
  leases: ref("coordination.k8s.io", "v1", "leases", "Lease"),
  certificatesigningrequests: ref("certificates.k8s.io", "v1", "certificatesigningrequests", "CertificateSigningRequest", false),
  subjectaccessreviews: ref("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", false),
  replicasets: ref("apps", "v1", "replicasets", "ReplicaSet"),
  statefulsets: ref("apps", "v1", "statefulsets", "StatefulSet"),
  deployments: ref("apps", "v1", "deployments", "Deployment"),
  daemonsets: ref("apps", "v1", "daemonsets", "DaemonSet"),
  controllerrevisions: ref("apps", "v1", "controllerrevisions", "ControllerRevision"),
  jobs: ref("batch", "v1", "jobs", "Job"),
  cronjobs: ref("batch", "v1", "cronjobs", "CronJob"),
  priorityclasses: ref("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false),
  storageclasses: ref("storage.k8s.io", "v1", "storageclasses", "StorageClass", false),
  csinodes: ref("storage.k8s.io", "v1", "csinodes", "CSINode", false),
  csidrivers: ref("storage.k8s.io", "v1", "csidrivers", "CSIDriver", false),
  poddisruptionbudgets: ref("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget"),
  clusterroles: ref("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false),
  clusterrolebindings: ref("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false),
} as const satisfies Record<string, ResourceRef>;
