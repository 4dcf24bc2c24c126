// VolumeRestrictions: a node cannot take a pod whose GCE PD, AWS EBS, iSCSI or RBD volume is
// already mounted there by another pod, unless (where the disk allows it) every mount is read-only.
import { unschedulable, type FilterPlugin, type Plugin, type Pod, type Volume } from "../framework/index.ts";
import { VolumeRestrictions } from "./names.ts";

export const ERR_REASON_DISK_CONFLICT = "node(s) had no available disk";

type Src = Record<string, any> | undefined;

const bothReadOnly = (a: Src, b: Src) => !!a?.readOnly && !!b?.readOnly;

function conflicts(v: Volume, existing: Volume): boolean {
  const gce = [v.gcePersistentDisk, existing.gcePersistentDisk] as Src[];
  if (gce[0] && gce[1] && gce[0].pdName === gce[1].pdName && !bothReadOnly(gce[0], gce[1])) return true;
  const ebs = [v.awsElasticBlockStore, existing.awsElasticBlockStore] as Src[];
  if (ebs[0] && ebs[1] && ebs[0].volumeID === ebs[1].volumeID) return true;
  const iscsi = [v.iscsi, existing.iscsi] as Src[];
  if (iscsi[0] && iscsi[1] && iscsi[0].iqn === iscsi[1].iqn && !bothReadOnly(iscsi[0], iscsi[1])) return true;
  const rbd = [v.rbd, existing.rbd] as Src[];
  if (rbd[0] && rbd[1]) {
    const monitors = new Set<string>(rbd[0].monitors ?? []);
    const overlap = (rbd[1].monitors ?? []).some((m: string) => monitors.has(m));
    const pool = (r: Src) => r!.pool ?? "rbd";
    if (overlap && pool(rbd[0]) === pool(rbd[1]) && rbd[0].image === rbd[1].image && !bothReadOnly(rbd[0], rbd[1])) return true;
  }
  return false;
}

const exclusive = (v: Volume) => !!(v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi);

function podConflicts(v: Volume, other: Pod): boolean {
  for (const e of other.spec.volumes ?? []) if (conflicts(v, e)) return true;
  return false;
}

export function newVolumeRestrictions(): Plugin {
  const plugin: FilterPlugin = {
    name: VolumeRestrictions,
    filterSkips: (pod) => !(pod.spec.volumes ?? []).some(exclusive),
    filter(_state, pod, nodeInfo) {
      const volumes = pod.spec.volumes;
      if (!volumes) return null;
      for (const v of volumes) {
        if (!exclusive(v)) continue;
        for (const pi of nodeInfo.pods) if (podConflicts(v, pi.pod)) return unschedulable(ERR_REASON_DISK_CONFLICT);
      }
      return null;
    },
  };
  return plugin;
}
