// VolumeBinding, the basics: every PersistentVolumeClaim a pod uses must exist; a claim bound to a
// volume needs a node the volume's node affinity allows; an unbound claim must wait for its first
// consumer (WaitForFirstConsumer), and then the chosen node is written on it for the provisioner.
import {
  Code, nodeSelector, Status, unresolvable,
  type AnyObject, type CycleState, type FilterPlugin, type Handle, type Plugin, type Pod, type PreBindPlugin, type PreFilterPlugin,
  type ReservePlugin, type StateData,
} from "../framework/index.ts";
import { VolumeBinding } from "./names.ts";

export const ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims";
export const ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict";
const STATE_KEY = VolumeBinding;
const ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed";
const ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node";
const ANN_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class";

class PodVolumes implements StateData {
  constructor(readonly skip: boolean, readonly boundClaims: AnyObject[], readonly claimsToBind: AnyObject[]) {}
  clone() { return this; }
}

/** The claims a pod's volumes name: persistentVolumeClaim volumes and generic ephemeral ones. */
function claimNames(pod: Pod): { name: string; ephemeral: boolean }[] {
  const out: { name: string; ephemeral: boolean }[] = [];
  for (const v of pod.spec.volumes ?? []) {
    if (v.persistentVolumeClaim) out.push({ name: v.persistentVolumeClaim.claimName, ephemeral: false });
    else if (v.ephemeral) out.push({ name: `${pod.metadata.name}-${v.name}`, ephemeral: true });
  }
  return out;
}

const isOwnedBy = (o: AnyObject, pod: Pod) =>
  ((o.metadata.ownerReferences ?? []) as { uid?: string; controller?: boolean }[]).some((r) => r.controller && r.uid === pod.metadata.uid);

export function newVolumeBinding(_args: unknown, handle: Handle): Plugin {
  const listers = handle.listers;
  /** IsDelayBindingMode: the claim's class binds on first consumer. */
  function delayBinding(pvc: AnyObject): boolean {
    const className = pvc.spec?.storageClassName ?? pvc.metadata.annotations?.[ANN_STORAGE_CLASS] ?? "";
    if (!className) return false;
    const sc = listers.storageClass(className);
    if (!sc) return false;
    if (!sc.volumeBindingMode) throw new Error(`VolumeBindingMode not set for StorageClass "${className}"`);
    return sc.volumeBindingMode === "WaitForFirstConsumer";
  }

  const plugin: PreFilterPlugin & FilterPlugin & ReservePlugin & PreBindPlugin = {
    name: VolumeBinding,
    preFilter(state, pod) {
      const names = claimNames(pod);
      if (names.length === 0) {
        state.write(STATE_KEY, new PodVolumes(true, [], []));
        return null;
      }
      const ns = pod.metadata.namespace ?? "";
      const bound: AnyObject[] = [];
      const toBind: AnyObject[] = [];
      let unboundImmediate = false;
      for (const { name, ephemeral } of names) {
        const pvc = listers.persistentVolumeClaim(ns, name);
        if (!pvc) return unresolvable(`persistentvolumeclaim "${name}" not found`);
        if (pvc.metadata.deletionTimestamp) return unresolvable(`persistentvolumeclaim "${name}" is being deleted`);
        if (ephemeral && !isOwnedBy(pvc, pod)) {
          return unresolvable(`PVC ${ns}/${name} was not created for pod ${ns}/${pod.metadata.name} (pod is not owner)`);
        }
        if (pvc.spec?.volumeName && pvc.metadata.annotations?.[ANN_BIND_COMPLETED] !== undefined) bound.push(pvc);
        else if (!pvc.spec?.volumeName && delayBinding(pvc)) toBind.push(pvc);
        else unboundImmediate = true;
      }
      if (unboundImmediate) return unresolvable(ERR_REASON_UNBOUND_IMMEDIATE);
      state.write(STATE_KEY, new PodVolumes(false, bound, toBind));
      return null;
    },
    preFilterExtensions: () => null,
    filterSkips: (pod) => claimNames(pod).length === 0,
    filter(state: CycleState, _pod, nodeInfo) {
      const s = state.read<PodVolumes>(STATE_KEY);
      if (!s) return new Status(Code.Error, `error reading "${STATE_KEY}" from cycleState: not found`);
      if (s.skip) return null;
      const node = nodeInfo.node;
      if (!node) return new Status(Code.Error, "node not found");
      for (const pvc of s.boundClaims) {
        const pv = listers.persistentVolume(pvc.spec.volumeName);
        if (!pv) return new Status(Code.Error, `pv "${pvc.spec.volumeName}" not found`);
        const required = pv.spec?.nodeAffinity?.required;
        if (required && !nodeSelector(required)({ metadata: { name: node.metadata.name, labels: node.metadata.labels } })) {
          return unresolvable(ERR_REASON_NODE_CONFLICT);
        }
      }
      return null;
    },
    // Nothing is assumed in memory between Reserve and PreBind: the claims are written at PreBind.
    reserve: () => null,
    unreserve: () => {},
    async preBind(state, _pod, nodeName) {
      const s = state.read<PodVolumes>(STATE_KEY);
      if (!s || s.skip) return null;
      for (const pvc of s.claimsToBind) {
        await handle.actions.annotateClaim(pvc.metadata.namespace ?? "", pvc.metadata.name ?? "", ANN_SELECTED_NODE, nodeName);
      }
      return null;
    },
  };
  return plugin;
}
