// Printers for storage.k8s.io, after upstream's pkg/printers/internalversion (v1.21).
import type { Obj } from "../registry/types.ts";
import { ageColumn, bool, int, nameColumn, str, type Printers } from "./columns.ts";

const DEFAULT_CLASS = ["storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"];
const isDefaultClass = (o: Obj) => DEFAULT_CLASS.some((a) => o.metadata?.annotations?.[a] === "true");

function tokenRequests(d: Obj): string {
  const t: Obj[] | undefined = d.spec?.tokenRequests;
  return t ? t.map((r) => r.audience ?? "").join(",") : "<unset>";
}

export const STORAGE: Printers = {
  "StorageClass.storage.k8s.io": {
    columns: [
      { ...nameColumn, cell: (o) => `${o.metadata?.name ?? ""}${isDefaultClass(o) ? " (default)" : ""}` },
      str("Provisioner", "The volume plugin provisioning volumes.", (o) => o.provisioner ?? ""),
      str("ReclaimPolicy", "Reclaim policy of provisioned volumes.", (o) => o.reclaimPolicy ?? "Delete"),
      str("VolumeBindingMode", "When volumes are bound and provisioned.", (o) => o.volumeBindingMode ?? "Immediate"),
      str("AllowVolumeExpansion", "Whether volumes may be expanded.", (o) => o.allowVolumeExpansion === true),
      ageColumn,
    ],
  },
  "CSIDriver.storage.k8s.io": {
    columns: [
      nameColumn,
      bool("AttachRequired", "Whether the driver needs an attach step.", (o) => o.spec?.attachRequired ?? true),
      bool("PodInfoOnMount", "Whether pod information is passed on mount.", (o) => o.spec?.podInfoOnMount ?? false),
      bool("StorageCapacity", "Whether the scheduler considers storage capacity.", (o) => o.spec?.storageCapacity ?? false),
      str("TokenRequests", "Audiences of service account tokens passed to the driver.", tokenRequests),
      bool("RequiresRepublish", "Whether volumes are periodically republished.", (o) => o.spec?.requiresRepublish ?? false),
      str("Modes", "Supported volume lifecycle modes.", (o) => (o.spec?.volumeLifecycleModes ?? []).join(",") || "<none>"),
      ageColumn,
    ],
  },
  "CSINode.storage.k8s.io": {
    columns: [nameColumn, int("Drivers", "Number of CSI drivers registered on the node.", (o) => (o.spec?.drivers ?? []).length), ageColumn],
  },
  "VolumeAttachment.storage.k8s.io": {
    columns: [
      nameColumn,
      { ...str("Attacher", "The driver attaching the volume.", (o) => o.spec?.attacher ?? ""), format: "name" },
      str("PV", "The persistent volume attached.", (o) => o.spec?.source?.persistentVolumeName ?? ""),
      str("Node", "The node the volume is attached to.", (o) => o.spec?.nodeName ?? ""),
      bool("Attached", "Whether the volume is attached.", (o) => o.status?.attached ?? false),
      ageColumn,
    ],
  },
};
