// The NoExecute taint manager (upstream v1.21's, TaintBasedEvictions): a pod on a node with NoExecute taints
// is deleted at once when a taint is not tolerated, after the least tolerationSeconds of the tolerations it
// uses, or never; its deletion is cancelled when the taints go. Kite's API server adds no default
// tolerations (upstream's DefaultTolerationSeconds admission), so a pod without one goes at once.
import { consola } from "consola";
import { isNotFound, type Client, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import { RESOURCES } from "../client/resources.ts";
import { keyOf } from "./framework.ts";
import { tolerationMs, type Taint } from "./nodelifecycle-taints.ts";

export class TaintEvictions {
  private readonly scheduled = new Map<string, Timer>();

  constructor(private readonly client: Client, private readonly recorder: EventRecorder) {}

  /** Brings the pod's planned deletion in line with its node's NoExecute taints. */
  consider(pod: Obj, taints: Taint[]): void {
    if (pod.metadata.deletionTimestamp) return this.forget(keyOf(pod));
    const ms = taints.length ? tolerationMs(taints, pod.spec?.tolerations ?? []) : undefined;
    if (ms === undefined) return this.cancel(pod);
    // a deletion already planned stands: it comes no later than one planned now
    if (this.scheduled.has(keyOf(pod))) return;
    this.scheduled.set(keyOf(pod), setTimeout(() => void this.evict(pod), ms));
  }

  /** The pod is gone or going: nothing to do for it any more. */
  forget(key: string): void {
    clearTimeout(this.scheduled.get(key));
    this.scheduled.delete(key);
  }

  stop(): void {
    for (const key of [...this.scheduled.keys()]) this.forget(key);
  }

  private cancel(pod: Obj): void {
    const key = keyOf(pod);
    if (!this.scheduled.has(key)) return;
    this.forget(key);
    this.recorder.event(pod, undefined, "Normal", "TaintManagerEviction", "Cancel", `Cancelling deletion of Pod ${key}`);
  }

  private async evict(pod: Obj): Promise<void> {
    const key = keyOf(pod);
    this.scheduled.delete(key);
    this.recorder.event(pod, undefined, "Normal", "TaintManagerEviction", "Delete", `Marking for deletion Pod ${key}`);
    try {
      await this.client.delete(RESOURCES.pods, pod.metadata.name, { namespace: pod.metadata.namespace, preconditions: { uid: pod.metadata.uid } });
    } catch (e) {
      if (!isNotFound(e)) consola.warn(`nodelifecycle: deleting pod ${key}: ${(e as Error).message}`);
    }
  }
}
