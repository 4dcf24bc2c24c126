// NodeVolumeLimits: a node attaches at most so many volumes of each CSI driver (its CSINode's
// allocatable count, else the node's attachable-volumes-csi-<driver>). Volumes come through
// PersistentVolumeClaims; one volume mounted by several pods counts once.
import { createHash } from "node:crypto";
import { unschedulable, type AnyObject, type FilterPlugin, type Handle, type NodeInfo, type Plugin, type Volume } from "../framework/index.ts";
import { NodeVolumeLimits } from "./names.ts";
import { ERR_REASON_MAX_VOLUME_COUNT } from "./volume-limits.ts";

const CSI_PREFIX = "attachable-volumes-csi-";
const RESOURCE_NAME_LENGTH_LIMIT = 63;

/** The allocatable key of a driver; long names are cut and suffixed with a hash, as upstream. */
export function csiAttachLimitKey(driver: string): string {
  if (CSI_PREFIX.length + driver.length < RESOURCE_NAME_LENGTH_LIMIT) return CSI_PREFIX + driver;
  return CSI_PREFIX + driver.slice(0, 23) + createHash("sha1").update(driver).digest("hex").slice(0, 16);
}

function volumeLimits(nodeInfo: NodeInfo, csiNode: AnyObject | undefined): Map<string, number> {
  const limits = new Map<string, number>();
  for (const [k, v] of nodeInfo.allocatable.scalar ?? []) if (k.startsWith("attachable-volumes-")) limits.set(k, v);
  for (const d of csiNode?.spec?.drivers ?? []) {
    if (typeof d.allocatable?.count === "number") limits.set(csiAttachLimitKey(d.name), d.allocatable.count);
  }
  return limits;
}

export function newNodeVolumeLimits(_args: unknown, handle: Handle): Plugin {
  const listers = handle.listers;
  /** Volume unique name ("driver/handle") → limit key, for the CSI volumes among these. */
  function collect(volumes: Volume[] | undefined, ns: string, out: Map<string, string>): void {
    for (const v of volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName;
      if (claim === undefined) continue;
      if (claim === "") throw new Error("PersistentVolumeClaim had no name");
      const pvc = listers.persistentVolumeClaim(ns, claim);
      if (!pvc) continue;
      let driver: string | undefined;
      let volumeHandle: string | undefined;
      const pv = pvc.spec?.volumeName ? listers.persistentVolume(pvc.spec.volumeName) : undefined;
      if (pv) {
        driver = pv.spec?.csi?.driver;
        volumeHandle = pv.spec?.csi?.volumeHandle;
      } else if (pvc.spec?.storageClassName) {
        // Not bound yet: the class's provisioner will make one volume for this claim.
        driver = listers.storageClass(pvc.spec.storageClassName)?.provisioner;
        volumeHandle = `${ns}/${claim}`;
      }
      if (driver && volumeHandle) out.set(`${driver}/${volumeHandle}`, csiAttachLimitKey(driver));
    }
  }
  const plugin: FilterPlugin = {
    name: NodeVolumeLimits,
    filterSkips: (pod) => !(pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim),
    filter(_state, pod, nodeInfo) {
      const node = nodeInfo.node;
      if (!node) throw new Error("node not found");
      const fresh = new Map<string, string>();
      collect(pod.spec.volumes, pod.metadata.namespace ?? "", fresh);
      if (fresh.size === 0) return null;
      const limits = volumeLimits(nodeInfo, listers.csiNode?.(nodeInfo.name));
      if (limits.size === 0) return null;
      const attached = new Map<string, string>();
      for (const pi of nodeInfo.pods) collect(pi.pod.spec.volumes, pi.pod.metadata.namespace ?? "", attached);
      const attachedCount = new Map<string, number>();
      for (const [name, key] of attached) {
        fresh.delete(name);
        attachedCount.set(key, (attachedCount.get(key) ?? 0) + 1);
      }
      const freshCount = new Map<string, number>();
      for (const key of fresh.values()) freshCount.set(key, (freshCount.get(key) ?? 0) + 1);
      for (const [key, n] of freshCount) {
        const max = limits.get(key);
        if (max !== undefined && (attachedCount.get(key) ?? 0) + n > max) return unschedulable(ERR_REASON_MAX_VOLUME_COUNT);
      }
      return null;
    },
  };
  return plugin;
}
