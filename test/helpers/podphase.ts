// Pods "run" without a node: a test stands for the node agent by writing a pod's phase (and, for
// Running, the Ready condition) through the status subresource.
import type { TestServer } from "./server.ts";

export const podPath = (ns: string, name: string) => `/api/v1/namespaces/${ns}/pods/${name}`;

/** Sets a pod's status.phase (Running also marks it Ready); fails the test if the server refuses. */
export async function setPodPhase(s: TestServer, pod: { metadata: { namespace: string; name: string } }, phase: "Running" | "Succeeded" | "Failed"): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const status: Record<string, unknown> = { phase };
  if (phase === "Running") status.conditions = [{ type: "Ready", status: "True", lastTransitionTime: now }];
  if (phase !== "Running") status.conditions = [{ type: "Ready", status: "False", reason: phase === "Succeeded" ? "PodCompleted" : "PodFailed", lastTransitionTime: now }];
  const r = await s.call("PATCH", `${podPath(pod.metadata.namespace, pod.metadata.name)}/status`, { status }, { "Content-Type": "application/merge-patch+json" });
  if (r.status !== 200) throw new Error(`setting ${pod.metadata.name} ${phase}: ${r.status} ${JSON.stringify(r.body)}`);
}

/** The pods of a namespace that a label selector picks. */
export async function listPods(s: TestServer, ns: string, selector = ""): Promise<any[]> {
  const r = await s.call("GET", `/api/v1/namespaces/${ns}/pods${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ""}`);
  return r.body.items;
}
