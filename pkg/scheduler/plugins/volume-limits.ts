// EBSLimits, GCEPDLimits, AzureDiskLimits: a node attaches at most so many disks of a cloud type
// (its allocatable attachable-volumes-*, else the type's default, or KUBE_MAX_PD_VOLS). Disks are
// counted once per node however many pods mount them, inline or through a bound PersistentVolume.
import { unschedulable, type AnyObject, type FilterPlugin, type Handle, type Node, type Plugin, type Volume } from "../framework/index.ts";
import { AzureDiskLimits, EBSLimits, GCEPDLimits } from "./names.ts";

export const ERR_REASON_MAX_VOLUME_COUNT = "node(s) exceed max volume count";

interface DiskType {
  name: string;
  /** The id of a volume source of this type (inline volume or PV spec), or undefined. */
  idOf(src: Record<string, any>): string | undefined;
  limitKey: string;
  /** The in-tree provisioner of this disk type. */
  provisioner: string;
  defaultMax(node: Node): number;
}

const ANN_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class";

const EBS_NITRO = /^[cmr]5.*|t3|z1d/;
const instanceType = (n: Node) => n.metadata.labels?.["node.kubernetes.io/instance-type"] ?? n.metadata.labels?.["beta.kubernetes.io/instance-type"] ?? "";

const TYPES: DiskType[] = [
  { name: EBSLimits, idOf: (s) => s.awsElasticBlockStore?.volumeID, limitKey: "attachable-volumes-aws-ebs", provisioner: "kubernetes.io/aws-ebs", defaultMax: (n) => (EBS_NITRO.test(instanceType(n)) ? 25 : 39) },
  { name: GCEPDLimits, idOf: (s) => s.gcePersistentDisk?.pdName, limitKey: "attachable-volumes-gce-pd", provisioner: "kubernetes.io/gce-pd", defaultMax: () => 16 },
  { name: AzureDiskLimits, idOf: (s) => s.azureDisk?.diskName, limitKey: "attachable-volumes-azure-disk", provisioner: "kubernetes.io/azure-disk", defaultMax: () => 16 },
];

/** KUBE_MAX_PD_VOLS overrides every type's default when it is a positive integer. */
function envMax(): number | null {
  const v = Number(process.env.KUBE_MAX_PD_VOLS);
  return Number.isInteger(v) && v > 0 ? v : null;
}

function diskLimitPlugin(type: DiskType, handle: Handle): Plugin {
  const listers = handle.listers;
  /** Adds the ids of the volumes of this type to `out`; a claim not yet resolvable counts as one. */
  function collect(volumes: Volume[] | undefined, ns: string, out: Set<string>): void {
    for (const v of volumes ?? []) {
      const id = type.idOf(v);
      if (id !== undefined) { out.add(id); continue; }
      const claim = v.persistentVolumeClaim?.claimName;
      if (claim === undefined) continue;
      if (claim === "") throw new Error("PersistentVolumeClaim had no name");
      const pvc = listers.persistentVolumeClaim(ns, claim);
      // A claim or volume not found yet is assumed to be of this type, as upstream counts them;
      // an unbound claim counts when its class provisions disks of this type.
      if (!pvc) { out.add(`${ns}/${claim}`); continue; }
      if (!pvc.spec?.volumeName) {
        const sc = listers.storageClass(pvc.spec?.storageClassName ?? pvc.metadata.annotations?.[ANN_STORAGE_CLASS] ?? "");
        if (sc?.provisioner === type.provisioner) out.add(`${ns}/${claim}`);
        continue;
      }
      const pv: AnyObject | undefined = listers.persistentVolume(pvc.spec.volumeName);
      if (!pv) { out.add(`${ns}/${claim}`); continue; }
      const pvID = type.idOf(pv.spec ?? {});
      if (pvID !== undefined) out.add(pvID);
    }
  }
  const plugin: FilterPlugin = {
    name: type.name,
    // only disks of this type and claims (which may name one) count
    filterSkips: (pod) => !(pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim || type.idOf(v) !== undefined),
    filter(_state, pod, nodeInfo) {
      const volumes = pod.spec.volumes;
      if (!volumes || volumes.length === 0) return null;
      const fresh = new Set<string>();
      collect(volumes, pod.metadata.namespace ?? "", fresh);
      if (fresh.size === 0) return null;
      const node = nodeInfo.node;
      if (!node) throw new Error("node not found");
      const existing = new Set<string>();
      for (const pi of nodeInfo.pods) collect(pi.pod.spec.volumes, pi.pod.metadata.namespace ?? "", existing);
      for (const id of existing) fresh.delete(id);
      const fromNode = nodeInfo.allocatable.scalar?.get(type.limitKey);
      const max = fromNode ?? envMax() ?? type.defaultMax(node);
      return existing.size + fresh.size > max ? unschedulable(ERR_REASON_MAX_VOLUME_COUNT) : null;
    },
  };
  return plugin;
}

export const newEBSLimits = (_args: unknown, h: Handle) => diskLimitPlugin(TYPES[0], h);
export const newGCEPDLimits = (_args: unknown, h: Handle) => diskLimitPlugin(TYPES[1], h);
export const newAzureDiskLimits = (_args: unknown, h: Handle) => diskLimitPlugin(TYPES[2], h);
