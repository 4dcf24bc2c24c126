// Upstream's controller roles: one ClusterRole system:controller:NAME per controller of the controller
// manager, bound to the kube-system ServiceAccount NAME that controller runs as.
import type { Obj } from "../../../registry/types.ts";
import type { PolicyRule } from "../rules.ts";
import { clusterBinding, clusterRole, events, r, sa } from "./dsl.ts";

const READ = "get list watch";
const PREFIX = "system:controller:";

const CONTROLLERS: [string, PolicyRule[]][] = [
  ["attachdetach-controller", [
    r("list watch", "core", "persistentvolumes persistentvolumeclaims"), r(READ, "core", "nodes"), r("patch update", "core", "nodes/status"),
    r("list watch", "core", "pods"), events(), r("get create delete list watch", "storage.k8s.io", "volumeattachments"),
    r(READ, "storage.k8s.io", "csidrivers"), r(READ, "storage.k8s.io", "csinodes"),
  ]],
  ["clusterrole-aggregation-controller", [r("escalate get list watch update patch", "rbac.authorization.k8s.io", "clusterroles")]],
  ["cronjob-controller", [
    r("get list watch update", "batch", "cronjobs"), r("get list watch create update delete patch", "batch", "jobs"),
    r("update", "batch", "cronjobs/status"), r("update", "batch", "cronjobs/finalizers"), r("list watch delete", "core", "pods"), events(),
  ]],
  ["daemon-set-controller", [
    r(READ, "extensions apps", "daemonsets"), r("update", "extensions apps", "daemonsets/status"), r("update", "extensions apps", "daemonsets/finalizers"),
    r("list watch", "core", "nodes"), r("list watch create delete patch", "core", "pods"), r("create", "core", "pods/binding"),
    r("get list watch create delete update patch", "apps", "controllerrevisions"), events(),
  ]],
  ["deployment-controller", [
    r("get list watch update", "extensions apps", "deployments"), r("update", "extensions apps", "deployments/status"), r("update", "extensions apps", "deployments/finalizers"),
    r("get list watch create update patch delete", "apps extensions", "replicasets"), r("get list watch update", "core", "pods"), events(),
  ]],
  ["disruption-controller", [
    r(READ, "extensions apps", "deployments"), r(READ, "apps extensions", "replicasets"), r(READ, "core", "replicationcontrollers"),
    r(READ, "policy", "poddisruptionbudgets"), r(READ, "apps", "statefulsets"), r("update", "policy", "poddisruptionbudgets/status"),
    r("get", "*", "*/scale"), events(),
  ]],
  ["endpoint-controller", [
    r(READ, "core", "services pods"), r("get list watch create update delete", "core", "endpoints"), r("create", "core", "endpoints/restricted"), events(),
  ]],
  ["endpointslice-controller", [
    r(READ, "core", "services pods nodes"), r("update", "core", "services/finalizers"),
    r("get list watch create update delete", "discovery.k8s.io", "endpointslices"), events(),
  ]],
  ["endpointslicemirroring-controller", [
    r(READ, "core", "services endpoints"), r("update", "core", "services/finalizers"), r("update", "core", "endpoints/finalizers"),
    r("get list watch create update delete", "discovery.k8s.io", "endpointslices"), events(),
  ]],
  ["expand-controller", [
    r("get list watch update patch", "core", "persistentvolumes"), r("update patch", "core", "persistentvolumeclaims/status"),
    r(READ, "core", "persistentvolumeclaims"), events(), r("get", "core", "services"),
  ]],
  ["generic-garbage-collector", [r("get list watch patch update delete", "*", "*"), events()]],
  ["horizontal-pod-autoscaler", [
    r(READ, "autoscaling", "horizontalpodautoscalers"), r("update", "autoscaling", "horizontalpodautoscalers/status"),
    r("get update", "*", "*/scale"), r("list watch", "core", "pods"), r("list watch", "metrics.k8s.io", "pods"),
    r(READ, "custom.metrics.k8s.io", "*"), r(READ, "external.metrics.k8s.io", "*"), events(),
  ]],
  ["job-controller", [
    r("get list watch update patch", "batch", "jobs"), r("update", "batch", "jobs/status"), r("update", "batch", "jobs/finalizers"),
    r("list watch create delete patch", "core", "pods"), events(),
  ]],
  ["namespace-controller", [
    r("get list watch delete", "core", "namespaces"), r("update", "core", "namespaces/finalize namespaces/status"),
    r("get list watch delete deletecollection", "*", "*"),
  ]],
  ["node-controller", [
    r("get list watch update delete patch", "core", "nodes"), r("patch update", "core", "nodes/status"),
    r("patch update", "core", "pods/status"), r("list watch get delete", "core", "pods"), events(),
  ]],
  ["persistent-volume-binder", [
    r("get list watch update create delete", "core", "persistentvolumes"), r("update", "core", "persistentvolumes/status"),
    r("get list watch update", "core", "persistentvolumeclaims"), r("update", "core", "persistentvolumeclaims/status"),
    r("list watch get create delete", "core", "pods"), r(READ, "storage.k8s.io", "storageclasses"), r("list watch", "core", "nodes"),
    events(), r("watch", "core", "events"), r("get", "core", "services"),
  ]],
  ["pod-garbage-collector", [r("list watch delete", "core", "pods"), r(READ, "core", "nodes")]],
  ["replicaset-controller", [
    r("get list watch update", "apps extensions", "replicasets"), r("update", "apps extensions", "replicasets/status"),
    r("update", "apps extensions", "replicasets/finalizers"), r("list watch patch create delete", "core", "pods"), events(),
  ]],
  ["replication-controller", [
    r("get list watch update", "core", "replicationcontrollers"), r("update", "core", "replicationcontrollers/status"),
    r("update", "core", "replicationcontrollers/finalizers"), r("list watch patch create delete", "core", "pods"), events(),
  ]],
  ["resourcequota-controller", [r("list watch", "*", "*"), r("update", "core", "resourcequotas/status"), events()]],
  ["route-controller", [r("list watch", "core", "nodes"), r("patch", "core", "nodes/status"), events()]],
  ["service-account-controller", [r("create", "core", "serviceaccounts"), events()]],
  ["service-controller", [r(READ, "core", "services"), r("patch update", "core", "services/status"), r("list watch", "core", "nodes"), events()]],
  ["statefulset-controller", [
    r("list watch", "core", "pods"), r(READ, "apps", "statefulsets"), r("update", "apps", "statefulsets/status"), r("update", "apps", "statefulsets/finalizers"),
    r("get create delete update patch", "core", "pods"), r("get create delete update patch list watch", "apps", "controllerrevisions"),
    r("get create", "core", "persistentvolumeclaims"), r("update", "core", "pods/finalizers"), events(),
  ]],
  ["ttl-controller", [r("update patch list watch", "core", "nodes"), events()]],
  ["certificate-controller", [
    r("get list watch delete", "certificates.k8s.io", "certificatesigningrequests"),
    r("update", "certificates.k8s.io", "certificatesigningrequests/status certificatesigningrequests/approval"),
    r("approve", "certificates.k8s.io", "signers", "kubernetes.io/kube-apiserver-client-kubelet"),
    r("sign", "certificates.k8s.io", "signers", "kubernetes.io/legacy-unknown kubernetes.io/kube-apiserver-client kubernetes.io/kube-apiserver-client-kubelet kubernetes.io/kubelet-serving"),
    r("create", "authorization.k8s.io", "subjectaccessreviews"), events(),
  ]],
  ["pvc-protection-controller", [r("get list watch update", "core", "persistentvolumeclaims"), r("list watch get", "core", "pods"), events()]],
  ["pv-protection-controller", [r("get list watch update", "core", "persistentvolumes"), events()]],
  ["ttl-after-finished-controller", [r("get list watch delete", "batch", "jobs"), events()]],
  ["root-ca-cert-publisher", [r("create update", "core", "configmaps"), events()]],
];

export const CONTROLLER_ROLES: Obj[] = CONTROLLERS.map(([name, rules]) => clusterRole(PREFIX + name, rules));
export const CONTROLLER_BINDINGS: Obj[] = CONTROLLERS.map(([name]) => clusterBinding(PREFIX + name, [sa("kube-system", name)]));
