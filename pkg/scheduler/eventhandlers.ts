// The informers' events into the scheduler's cache and queue, as upstream's eventhandlers.go: bound pods
// are the cache's, pending pods of this scheduler's profiles are the queue's, and every cluster change
// that could make an unschedulable pod fit moves the unschedulable pods back to be tried.
import type { SharedInformer } from "../client/informer.ts";
import { objectOf } from "../client/store.ts";
import type { Node, Pod } from "./framework/index.ts";
import type { SchedulerCache } from "./internal/cache.ts";
import type { SchedulingQueue } from "./internal/queue.ts";
import { DEFAULT_SCHEDULER_NAME } from "./profiles.ts";

const assigned = (p: Pod) => !!p.spec?.nodeName;

/** Conditions without their times: a heartbeat alone changes nothing the filters read. */
const conditionStates = (n: Node) => ((n.status?.conditions ?? []) as { type: string; status: string }[]).map((c) => `${c.type}=${c.status}`).join(",");

/** Upstream's nodeSchedulingPropertiesChange: what an update must change to be worth a retry. */
function nodeSchedulingPropertiesChanged(old: Node, n: Node): boolean {
  return !!old.spec?.unschedulable !== !!n.spec?.unschedulable
    || !Bun.deepEquals(old.status?.allocatable, n.status?.allocatable)
    || !Bun.deepEquals(old.metadata.labels, n.metadata.labels)
    || !Bun.deepEquals(old.spec?.taints, n.spec?.taints)
    || conditionStates(old) !== conditionStates(n);
}

export interface Informers {
  pods: SharedInformer;
  nodes: SharedInformer;
  /** Objects whose changes may let pods with volumes fit (claims, volumes, classes, CSI nodes). */
  volumes: SharedInformer[];
}

export function addEventHandlers(inf: Informers, cache: SchedulerCache, queue: SchedulingQueue, profiles: { has(name: string): boolean }) {
  const ours = (p: Pod) => profiles.has(p.spec?.schedulerName || DEFAULT_SCHEDULER_NAME);
  inf.pods.addEventHandler({
    add(p: Pod) {
      if (assigned(p)) {
        cache.addPod(p);
        queue.assignedPodAdded(p);
      } else if (ours(p)) queue.add(p);
    },
    update(old: Pod, p: Pod) {
      if (assigned(p)) {
        if (assigned(old)) cache.updatePod(old, p);
        else {
          // bound (by us or another scheduler): it leaves the queue and joins the cache
          queue.delete(old);
          cache.addPod(p);
        }
        queue.assignedPodAdded(p);
      } else if (ours(p)) queue.update(old, p);
    },
    delete(x) {
      const p = objectOf(x) as Pod;
      if (assigned(p)) {
        cache.removePod(p);
        queue.moveAllToActiveOrBackoffQueue("AssignedPodDelete");
      } else queue.delete(p);
    },
  });
  inf.nodes.addEventHandler({
    add(n: Node) {
      cache.addNode(n);
      queue.moveAllToActiveOrBackoffQueue("NodeAdd");
    },
    update(old: Node, n: Node) {
      cache.updateNode(old, n);
      if (nodeSchedulingPropertiesChanged(old, n)) queue.moveAllToActiveOrBackoffQueue("NodeUpdate");
    },
    delete(x) { cache.removeNode(objectOf(x) as Node); },
  });
  for (const i of inf.volumes) {
    i.addEventHandler({
      add: () => queue.moveAllToActiveOrBackoffQueue(`${i.resource.kind}Add`),
      update: () => queue.moveAllToActiveOrBackoffQueue(`${i.resource.kind}Update`),
    });
  }
}
