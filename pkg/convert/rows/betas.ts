// The beta versions v1.21 still serves whose fields match their stable versions, with the releases
// upstream deprecates and removes them in (no deprecation: not yet deprecated in v1.21).
import type { VersionRow } from "../table.ts";
import { replacedBy, sameShape } from "./same.ts";

export const BETA_ROWS: VersionRow[] = [
  ...sameShape("batch", "v1beta1", "v1", ["CronJob"], replacedBy("batch", "v1", "1.21", "1.25")),
  ...sameShape("coordination.k8s.io", "v1beta1", "v1", ["Lease"], replacedBy("coordination.k8s.io", "v1", "1.19", "1.22")),
  ...sameShape("rbac.authorization.k8s.io", "v1beta1", "v1", ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"],
    replacedBy("rbac.authorization.k8s.io", "v1", "1.17", "1.22")),
  ...sameShape("scheduling.k8s.io", "v1beta1", "v1", ["PriorityClass"], replacedBy("scheduling.k8s.io", "v1", "1.14", "1.22")),
  ...sameShape("storage.k8s.io", "v1beta1", "v1", ["StorageClass", "VolumeAttachment", "CSIDriver"], replacedBy("storage.k8s.io", "v1", "1.19", "1.22")),
  ...sameShape("storage.k8s.io", "v1beta1", "v1", ["CSINode"], replacedBy("storage.k8s.io", "v1", "1.17", "1.22")),
  ...sameShape("node.k8s.io", "v1beta1", "v1", ["RuntimeClass"]),
  ...sameShape("networking.k8s.io", "v1beta1", "v1", ["IngressClass"], replacedBy("networking.k8s.io", "v1", "1.19", "1.22")),
  ...sameShape("apiregistration.k8s.io", "v1beta1", "v1", ["APIService"], replacedBy("apiregistration.k8s.io", "v1", "1.19", "1.22")),
  ...sameShape("authentication.k8s.io", "v1beta1", "v1", ["TokenReview"], replacedBy("authentication.k8s.io", "v1", "1.19", "1.22")),
];
