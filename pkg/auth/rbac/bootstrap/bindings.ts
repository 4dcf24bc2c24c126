// Upstream's default ClusterRoleBindings, and the Roles and RoleBindings of the system namespaces.
import type { Obj } from "../../../registry/types.ts";
import { AUTHENTICATED, MASTERS, UNAUTHENTICATED } from "../../user.ts";
import { binding, clusterBinding, group, r, role, sa, user } from "./dsl.ts";

export const CLUSTER_BINDINGS: Obj[] = [
  clusterBinding("cluster-admin", [group(MASTERS)]),
  clusterBinding("system:basic-user", [group(AUTHENTICATED)]),
  clusterBinding("system:discovery", [group(AUTHENTICATED)]),
  clusterBinding("system:kube-controller-manager", [user("system:kube-controller-manager")]),
  clusterBinding("system:kube-dns", [sa("kube-system", "kube-dns")]),
  clusterBinding("system:kube-scheduler", [user("system:kube-scheduler")]),
  clusterBinding("system:node", []),
  clusterBinding("system:node-proxier", [user("system:kube-proxy")]),
  clusterBinding("system:public-info-viewer", [group(AUTHENTICATED), group(UNAUTHENTICATED)]),
  clusterBinding("system:service-account-issuer-discovery", [group("system:serviceaccounts")]),
  clusterBinding("system:volume-scheduler", [user("system:kube-scheduler")]),
];

const LEADER_LOCKING = (component: string) => role("kube-system", `system::leader-locking-${component}`, [
  r("watch", "core", "configmaps"),
  r("get update", "core", "configmaps", component),
]);

export const NAMESPACE_ROLES: Obj[] = [
  role("kube-system", "extension-apiserver-authentication-reader", [r("get list watch", "core", "configmaps", "extension-apiserver-authentication")]),
  LEADER_LOCKING("kube-controller-manager"),
  LEADER_LOCKING("kube-scheduler"),
  role("kube-system", "system:controller:bootstrap-signer", [r("get list watch", "core", "secrets")]),
  role("kube-system", "system:controller:cloud-provider", [r("create get list watch", "core", "configmaps")]),
  role("kube-system", "system:controller:token-cleaner", [r("delete get list watch", "core", "secrets"), r("create patch update", "core events.k8s.io", "events")]),
  role("kube-public", "system:controller:bootstrap-signer", [r("get list watch", "core", "configmaps"), r("update", "core", "configmaps", "cluster-info"), r("create patch update", "core events.k8s.io", "events")]),
];

export const NAMESPACE_BINDINGS: Obj[] = [
  binding("kube-system", "extension-apiserver-authentication-reader", [user("system:kube-controller-manager"), user("system:kube-scheduler")], "system::extension-apiserver-authentication-reader"),
  binding("kube-system", "system::leader-locking-kube-controller-manager", [user("system:kube-controller-manager"), sa("kube-system", "kube-controller-manager")]),
  binding("kube-system", "system::leader-locking-kube-scheduler", [user("system:kube-scheduler"), sa("kube-system", "kube-scheduler")]),
  binding("kube-system", "system:controller:bootstrap-signer", [sa("kube-system", "bootstrap-signer")]),
  binding("kube-system", "system:controller:cloud-provider", [sa("kube-system", "cloud-provider")]),
  binding("kube-system", "system:controller:token-cleaner", [sa("kube-system", "token-cleaner")]),
  binding("kube-public", "system:controller:bootstrap-signer", [sa("kube-system", "bootstrap-signer")]),
];
