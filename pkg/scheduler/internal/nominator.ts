// Pods nominated to nodes by preemption (status.nominatedNodeName, or a nomination made in this
// process before the API caught up), so filters reserve room for them (upstream's nominator).
import { PodInfo, podUID, type Pod, type PodNominator } from "../framework/index.ts";

export class Nominator implements PodNominator {
  private readonly byNode = new Map<string, PodInfo[]>();
  private readonly nodeOf = new Map<string, string>();

  /** Nominates the pod to nodeName, or to its status.nominatedNodeName when nodeName is "". */
  addNominatedPod(pod: Pod, nodeName: string): void {
    this.deleteNominatedPodIfExists(pod);
    const node = nodeName || pod.status?.nominatedNodeName || "";
    if (!node) return;
    this.nodeOf.set(podUID(pod), node);
    let list = this.byNode.get(node);
    if (!list) this.byNode.set(node, (list = []));
    list.push(new PodInfo(pod));
  }

  deleteNominatedPodIfExists(pod: Pod): void {
    const uid = podUID(pod);
    const node = this.nodeOf.get(uid);
    if (node === undefined) return;
    this.nodeOf.delete(uid);
    const list = this.byNode.get(node)!;
    const i = list.findIndex((p) => podUID(p.pod) === uid);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byNode.delete(node);
  }

  /** Keeps a nomination made here when an update without status.nominatedNodeName arrives first. */
  updateNominatedPod(oldPod: Pod, newPod: Pod): void {
    const kept = newPod.status?.nominatedNodeName ? "" : this.nodeOf.get(podUID(oldPod)) ?? "";
    this.deleteNominatedPodIfExists(oldPod);
    this.addNominatedPod(newPod, kept);
  }

  nominatedPodsForNode(nodeName: string): PodInfo[] {
    return this.byNode.get(nodeName) ?? EMPTY;
  }

  nominatedNodeOf(pod: Pod): string | undefined {
    return this.nodeOf.get(podUID(pod));
  }
}

const EMPTY: PodInfo[] = [];
