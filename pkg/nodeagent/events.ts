// What the node agent records as core/v1 Events, as upstream's kubelet: source {component: "kubelet",
// host: <node name>}, about pods, their containers (a reference with the container's fieldPath, as
// `kubectl describe pod` shows it) and the Node (upstream's node reference: its uid is its name).
// No Pulled event: the process runtime has no images, so none is pulled or found "already present".
// No NodeAllocatableEnforced: the agent puts no cgroup around all pods that enforces allocatable.
import type { CoreEventRecorder } from "../client/corev1events.ts";
import type { EventType, ObjectReference } from "../client/events.ts";
import type { Obj } from "./node.ts";

/** Records one event about a fixed object. */
export type RecordEvent = (type: EventType, reason: string, message: string) => void;

export const podRef = (pod: Obj, fieldPath?: string): ObjectReference => {
  const m = pod.metadata;
  const ref: ObjectReference = { kind: "Pod", namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: "v1" };
  if (m.resourceVersion) ref.resourceVersion = m.resourceVersion;
  if (fieldPath) ref.fieldPath = fieldPath;
  return ref;
};

export const containerRef = (pod: Obj, container: string, init = false) =>
  podRef(pod, `spec.${init ? "initContainers" : "containers"}{${container}}`);

export const nodeRef = (nodeName: string): ObjectReference => ({ kind: "Node", name: nodeName, uid: nodeName });

/** A RecordEvent about `ref` through `recorder`. */
export const recordFor = (recorder: CoreEventRecorder, ref: ObjectReference): RecordEvent =>
  (type, reason, message) => recorder.event(ref, type, reason, message);

/** The node condition events (recordNodeStatusEvent): per condition type, its reason when True and when False. */
const CONDITION_EVENTS: Record<string, [string, string]> = {
  MemoryPressure: ["NodeHasInsufficientMemory", "NodeHasSufficientMemory"],
  DiskPressure: ["NodeHasDiskPressure", "NodeHasNoDiskPressure"],
  PIDPressure: ["NodeHasInsufficientPID", "NodeHasSufficientPID"],
  Ready: ["NodeReady", "NodeNotReady"],
};

/** The reasons of the conditions whose status changed from `before` to `after` (absent before: a change). */
export function conditionEvents(before: Obj[] | undefined, after: Obj[]): string[] {
  const was = new Map((before ?? []).map((c) => [c.type, c.status]));
  const reasons: string[] = [];
  for (const c of after) {
    const pair = CONDITION_EVENTS[c.type];
    if (!pair || was.get(c.type) === c.status || (c.status !== "True" && c.status !== "False")) continue;
    reasons.push(c.status === "True" ? pair[0] : pair[1]);
  }
  return reasons;
}
