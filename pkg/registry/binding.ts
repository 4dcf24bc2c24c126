// A pod's binding to a node, as upstream's BindingREST makes it: a v1 Binding (posted to pods/NAME/binding
// or to the legacy bindings collection) sets the pod's spec.nodeName once, adds the Binding's annotations
// and marks the pod PodScheduled. The pod goes through guaranteedUpdate: of two bindings that race,
// exactly one is stored and the other finds the pod assigned (409).
import { badRequest, conflict, invalid } from "../api/status.ts";
import { Errs } from "../validation/field.ts";
import type { ResourceStore } from "./generic.ts";
import { now } from "./metadata-values.ts";
import type { Obj } from "./types.ts";

/** What upstream's assignPod names in the Conflict of a pod it cannot bind. */
const POD_BINDING = { group: "", resource: "pods/binding" };

/** Upstream's answer to a create: a Status of Success, with the code it was sent with. */
export const BINDING_SUCCESS = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };

/**
 * Upstream's ValidatePodBinding. Upstream answers these as an untyped 500; Kite answers a client's
 * mistake as a 422 Invalid with the same causes (no 500 for a client's mistake).
 */
function checkBinding(b: Obj) {
  const e = new Errs();
  const kind = String(b.target?.kind ?? ""), name = String(b.target?.name ?? "");
  if (kind && kind !== "Node") e.notSupported("target.kind", kind, ["Node", "<empty>"]);
  if (!name) e.required("target.name");
  if (e.causes.length) throw invalid({ group: "", resource: "bindings", kind: "Binding" }, String(b.metadata?.name ?? ""), e.causes);
}

/** Sets a pod condition as upstream's UpdatePodCondition does: the transition time moves only with the status. */
function setPodCondition(pod: Obj, type: string, status: string) {
  const conditions: Obj[] = ((pod.status ??= {}).conditions ??= []);
  const i = conditions.findIndex((c) => c.type === type);
  const old = i >= 0 ? conditions[i] : undefined;
  // a reason and message of the condition it replaces are gone, as upstream's
  const next = { type, status, lastProbeTime: null, lastTransitionTime: old?.status === status ? old.lastTransitionTime : now() };
  if (old) conditions[i] = next;
  else conditions.push(next);
}

/** The pod's name as upstream's key function checks it (a legacy Binding names its pod in the body). */
function checkPodName(name: string) {
  if (!name) throw badRequest("Name parameter required.");
  const bad = name === "." || name === ".." ? [`may not be '${name}'`] : ["/", "%"].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
  if (bad.length) throw badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${bad.join(";")}`);
}

/** The stored pod with the binding applied, or the Conflict upstream answers for a pod it will not bind. */
function assign(pod: Obj, node: string, annotations: Record<string, string>): Obj {
  const m = pod.metadata;
  if (m.deletionTimestamp) throw conflict(POD_BINDING, m.name, `pod ${m.name} is being deleted, cannot be assigned to a host`);
  const assigned = pod.spec?.nodeName ?? "";
  if (assigned) throw conflict(POD_BINDING, m.name, `pod ${m.name} is already assigned to node ${JSON.stringify(assigned)}`);
  pod.spec = { ...pod.spec, nodeName: node };
  if (Object.keys(annotations).length) m.annotations = { ...m.annotations, ...annotations };
  setPodCondition(pod, "PodScheduled", "True");
  return pod;
}

/**
 * Binds the pod the checked Binding names (in ns) to its target node; dryRun does everything but the
 * write. 404 for a missing pod, 409 for one assigned already or being deleted.
 */
export async function bindPod(pods: ResourceStore, ns: string, binding: Obj, dryRun: boolean): Promise<void> {
  checkBinding(binding);
  const name = String(binding.metadata?.name ?? "");
  checkPodName(name);
  const node = String(binding.target.name);
  const annotations: Record<string, string> = binding.metadata.annotations ?? {};
  await pods.guaranteedUpdate(ns, name, (pod) => assign(pod, node, annotations), { sub: "binding", serverOwned: true, dryRun, cachedFirst: true });
}
