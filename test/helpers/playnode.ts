// Plays the node for controller tests: pods matching a label selector are marked Running and Ready (their
// status written as a node agent would) as they appear, optionally after a delay, so rollouts move fast
// without running processes.
import type { TestServer } from "./server.ts";

export interface NodePlayer {
  /** Stops marking pods (those already Ready stay so). */
  stop(): Promise<void>;
}

export interface PlayOptions {
  /** How long a new pod waits before it becomes Ready (ms; 0). */
  delayMs?: number;
  /** Pods this says no to are never made Ready. */
  accept?(pod: any): boolean;
}

const isReady = (pod: any) => (pod.status?.conditions ?? []).some((c: any) => c.type === "Ready" && c.status === "True");

/** Marks pods in `namespace` matching `selector` (a label selector string) Ready until stopped. */
export function playNode(s: TestServer, namespace: string, selector: string, o: PlayOptions = {}): NodePlayer {
  let stopped = false;
  const seen = new Map<string, number>();
  const done = (async () => {
    while (!stopped) {
      const r = await s.call("GET", `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(selector)}`);
      const now = Date.now();
      const due = (r.body.items ?? []).filter((p: any) => {
        if (isReady(p) || p.metadata.deletionTimestamp || (o.accept && !o.accept(p))) return false;
        if (!seen.has(p.metadata.uid)) seen.set(p.metadata.uid, now);
        return now - seen.get(p.metadata.uid)! >= (o.delayMs ?? 0);
      });
      await Promise.all(due.map((p: any) => markReady(s, p)));
      await Bun.sleep(25);
    }
  })();
  return { async stop() { stopped = true; await done; } };
}

/** Writes a pod's status as Running and Ready now. */
export async function markReady(s: TestServer, pod: any): Promise<void> {
  const t = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const status = {
    phase: "Running", startTime: pod.status?.startTime ?? t,
    conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: t })),
  };
  await s.call("PATCH", `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}/status`, { status }, { "content-type": "application/merge-patch+json" });
}
