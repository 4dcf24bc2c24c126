// Plays the node for controller tests: pods' status written as a node agent would (phase, readiness, IP),
// and a player that marks pods matching a label selector Running and Ready as they appear, optionally after
// a delay, so rollouts move fast without running processes.
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

export interface PodState { phase?: string; ready?: boolean; ip?: string }

/**
 * Writes a pod's status as its node would report it (phase, default Running; the Ready and ContainersReady
 * conditions, with a reason when a finished pod is not ready; its IP); returns Ready's transition time.
 */
export async function setPodStatus(s: TestServer, ns: string, name: string, st: PodState): Promise<string> {
  const at = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const phase = st.phase ?? "Running";
  const ready = st.ready ? "True" : "False";
  const reason = st.ready ? {} : phase === "Succeeded" ? { reason: "PodCompleted" } : phase === "Failed" ? { reason: "PodFailed" } : {};
  const status: Record<string, unknown> = {
    phase, startTime: at,
    conditions: [
      { type: "Initialized", status: "True", lastProbeTime: null, lastTransitionTime: at },
      { type: "Ready", status: ready, ...reason, lastProbeTime: null, lastTransitionTime: at },
      { type: "ContainersReady", status: ready, ...reason, lastProbeTime: null, lastTransitionTime: at },
      { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: at },
    ],
  };
  if (st.ip) Object.assign(status, { podIP: st.ip, podIPs: [{ ip: st.ip }] });
  const r = await s.call("PATCH", `/api/v1/namespaces/${ns}/pods/${name}/status`, { status }, { "content-type": "application/merge-patch+json" });
  if (r.status !== 200) throw new Error(`pod status of ${ns}/${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return at;
}

/** Marks a pod Running and Ready now. */
export const markReady = (s: TestServer, pod: any) => setPodStatus(s, pod.metadata.namespace, pod.metadata.name, { ready: true }).then(() => {});

/** Sets a pod's phase as its node would (Running is Ready; Succeeded and Failed are not). */
export const setPodPhase = (s: TestServer, pod: any, phase: "Running" | "Succeeded" | "Failed") =>
  setPodStatus(s, pod.metadata.namespace, pod.metadata.name, { phase, ready: phase === "Running" }).then(() => {});

/** The pods of a namespace that a label selector picks. */
export async function listPods(s: TestServer, ns: string, selector = ""): Promise<any[]> {
  const r = await s.call("GET", `/api/v1/namespaces/${ns}/pods${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ""}`);
  return r.body.items;
}

/** A pod bound to `node` whose one container serves `ports` (name → containerPort). */
export function podManifest(name: string, labels: Record<string, string>, ports: Record<string, number>, node = "node-1", extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1", kind: "Pod", metadata: { name, labels },
    spec: {
      nodeName: node, ...extra,
      containers: [{ name: "app", image: "app", command: ["sleep", "3600"], ports: Object.entries(ports).map(([n, p]) => ({ name: n, containerPort: p })) }],
    },
  };
}
