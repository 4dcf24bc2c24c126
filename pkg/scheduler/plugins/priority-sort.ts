// PrioritySort: higher spec.priority first, then the pod queued earlier.
import type { Plugin, QueueSortPlugin, QueuedPodInfo } from "../framework/index.ts";
import { PrioritySort } from "./names.ts";

export const podPriority = (q: QueuedPodInfo) => q.podInfo.pod.spec.priority ?? 0;

export function newPrioritySort(): Plugin {
  const plugin: QueueSortPlugin = {
    name: PrioritySort,
    less(a, b) {
      const p1 = podPriority(a);
      const p2 = podPriority(b);
      return p1 > p2 || (p1 === p2 && a.timestamp < b.timestamp);
    },
  };
  return plugin;
}
