// Plays a node for controller tests: writes the pod status a node agent would (phase, IPs, the Ready
// condition with its transition time) through the pods/status subresource.
import type { TestServer } from "./server.ts";

export interface PodState { ip?: string; ready?: boolean; phase?: string }

/** Sets a pod's status as its node would report it; returns the Ready condition's lastTransitionTime. */
export async function setPodStatus(s: TestServer, ns: string, name: string, st: PodState): Promise<string> {
  const at = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const ready = st.ready ? "True" : "False";
  const status: Record<string, unknown> = {
    phase: st.phase ?? "Running",
    conditions: [{ type: "Ready", status: ready, lastTransitionTime: at }, { type: "ContainersReady", status: ready, lastTransitionTime: at }],
  };
  if (st.ip) Object.assign(status, { podIP: st.ip, podIPs: [{ ip: st.ip }] });
  const r = await s.call("PATCH", `/api/v1/namespaces/${ns}/pods/${name}/status`, { status }, { "content-type": "application/merge-patch+json" });
  if (r.status !== 200) throw new Error(`pod status of ${ns}/${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return at;
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
