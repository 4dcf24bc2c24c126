// What the scheduler publishes about a pod's attempt: the FailedScheduling and Scheduled event
// messages and the PodScheduled condition, in upstream's words.
import type { Pod, PodCondition } from "./framework/index.ts";

/** PodScheduled=False reason when no node fits (v1.PodReasonUnschedulable). */
export const REASON_UNSCHEDULABLE = "Unschedulable";
/** PodScheduled=False reason for internal failures (assume, reserve, bind). */
export const REASON_SCHEDULER_ERROR = "SchedulerError";
export const EVENT_FAILED_SCHEDULING = "FailedScheduling";
export const EVENT_SCHEDULED = "Scheduled";

const MAX_EVENT_MESSAGE = 1024;

/** Event messages are cut at 1024 characters with " ..." as upstream's truncateMessage. */
export function truncateMessage(message: string): string {
  if (message.length <= MAX_EVENT_MESSAGE) return message;
  const suffix = " ...";
  return message.slice(0, MAX_EVENT_MESSAGE - suffix.length) + suffix;
}

export function scheduledMessage(pod: Pod, nodeName: string): string {
  return `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${nodeName}`;
}

/** The PodScheduled=False condition for a failed attempt (the message untruncated, as upstream). */
export function unscheduledCondition(reason: string, message: string): PodCondition {
  return { type: "PodScheduled", status: "False", reason, message };
}
