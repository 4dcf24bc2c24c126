// A persistentVolumeClaim volume: the claim must be Bound to a PersistentVolume that names it back; a
// hostPath or local PV's path is then used as is (upstream's desired-state populator and getPVSpec).
import type { Obj } from "../node.ts";
import type { PodObjects } from "./objects.ts";

export interface ClaimedVolume { pvName: string; path: string; hostPathType?: string; readOnly: boolean }

async function fetch(get: Promise<Obj>, what: string): Promise<Obj> {
  try { return await get; } catch (e) { throw new Error(`failed to fetch ${what} from API server: ${(e as Error).message}`); }
}

async function resolve(namespace: string, claimName: string, objects: PodObjects): Promise<{ pv: Obj; claim: Obj }> {
  const claim = await fetch(objects.claim(namespace, claimName), "PVC");
  if (claim.metadata.deletionTimestamp) throw new Error("PVC is being deleted");
  if (claim.status?.phase !== "Bound") throw new Error("PVC is not bound");
  const name = claim.spec?.volumeName;
  if (!name) throw new Error("PVC has empty pvc.Spec.VolumeName");
  const pv = await fetch(objects.volume(name), `PV ${name}`);
  const ref = pv.spec?.claimRef;
  if (!ref) throw new Error(`found PV object ${name} but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim`);
  if (ref.uid !== claim.metadata.uid) throw new Error(`found PV object ${name} but its pv.Spec.ClaimRef.UID ${ref.uid} does not point to claim.UID ${claim.metadata.uid}`);
  return { pv, claim };
}

/** The claimed volume's path on this node, or upstream's reason the pod cannot have it yet. */
export async function claimedVolume(namespace: string, source: Obj, objects: PodObjects): Promise<ClaimedVolume> {
  let pv: Obj;
  try {
    ({ pv } = await resolve(namespace, source.claimName, objects));
  } catch (e) {
    throw new Error(`error processing PVC ${namespace}/${source.claimName}: ${(e as Error).message}`);
  }
  const readOnly = source.readOnly === true;
  if (pv.spec.hostPath) return { pvName: pv.metadata.name, path: pv.spec.hostPath.path, hostPathType: pv.spec.hostPath.type, readOnly };
  if (pv.spec.local) return { pvName: pv.metadata.name, path: pv.spec.local.path, readOnly };
  throw new Error(`failed to get Plugin from volumeSpec for volume "${pv.metadata.name}" err=no volume plugin matched: this node mounts hostPath and local persistent volumes only`);
}
