// A pod's eviction, as upstream v1.21's EvictionREST makes it: an Eviction (posted to pods/NAME/eviction)
// deletes the pod unless the one PodDisruptionBudget that covers it allows no disruption (429). An allowed
// disruption is taken from the budget first — disruptionsAllowed one less and the pod in disruptedPods, so
// that the disruption controller does not count it healthy until it is gone — then the pod is deleted with
// the Eviction's DeleteOptions.
import { StatusError, badRequest, forbidden, internal } from "../api/status.ts";
import { labelSelector } from "../scheduler/framework/selectors.ts";
import type { ResourceStore } from "./generic.ts";
import { now } from "./metadata-values.ts";
import type { DeleteOptions } from "./store-options.ts";
import type { Obj } from "./types.ts";

/** Upstream's MaxDisruptedPodSize: evictions the disruption controller has yet to confirm, at most. */
const MAX_DISRUPTED_PODS = 2000;
const PDB = { group: "policy", resource: "poddisruptionbudget" };

/** Upstream's answer to a create: a Status of Success, with the code it was sent with. */
export const EVICTION_SUCCESS = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };

/** The 429 of a budget that allows no disruption now, with upstream's cause. */
const tooManyRequests = (cause: string) =>
  new StatusError(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.", { causes: [{ reason: "DisruptionBudget", message: cause }] });

/** A pod that has disrupted nothing by going: finished, or not yet started (upstream's canIgnorePDB). */
const canIgnorePDB = (pod: Obj) => ["Succeeded", "Failed", "Pending"].includes(pod.status?.phase);

const isPodReady = (pod: Obj) => (pod.status?.conditions ?? []).some((c: Obj) => c.type === "Ready" && c.status === "True");

/** The budgets whose selector picks the pod: policy/v1's, where an empty selector picks every pod and a nil one none. */
async function budgetsOf(pdbs: ResourceStore, pod: Obj): Promise<Obj[]> {
  const items: Obj[] = (await pdbs.list(pod.metadata.namespace)).items;
  return items.filter((pdb) => labelSelector(pdb.spec?.selector).matches(pod.metadata.labels));
}

/** Upstream's checkAndDecrement on the current budget: the status to store, or why the pod may not go. */
export function takeDisruption(pdb: Obj, podName: string): Obj {
  const st = pdb.status ?? {};
  const name = pdb.metadata.name;
  if ((st.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) throw tooManyRequests(`The disruption budget ${name} is still being processed by the server.`);
  const allowed = st.disruptionsAllowed ?? 0;
  if (allowed < 0) throw forbidden(PDB, name, "pdb disruptions allowed is negative");
  if (Object.keys(st.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS) throw forbidden(PDB, name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller");
  if (allowed === 0) throw tooManyRequests(`The disruption budget ${name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`);
  const next: Obj = { ...st, disruptionsAllowed: allowed - 1, disruptedPods: { ...st.disruptedPods, [podName]: now() } };
  if (next.disruptionsAllowed === 0) {
    // the DisruptionAllowed condition turns False with the last disruption (upstream's UpdateDisruptionAllowedCondition)
    const old = (st.conditions ?? []).find((c: Obj) => c.type === "DisruptionAllowed");
    const cond = { type: "DisruptionAllowed", status: "False", observedGeneration: st.observedGeneration ?? 0, lastTransitionTime: old?.status === "False" ? old.lastTransitionTime : now(), reason: "InsufficientPods", message: old?.message ?? "" };
    next.conditions = [...(st.conditions ?? []).filter((c: Obj) => c.type !== "DisruptionAllowed"), cond];
  }
  return { ...pdb, status: next };
}

/**
 * Evicts pod `name` in `ns` by the checked Eviction's DeleteOptions (dryRun: every check, no write). 404
 * for a missing pod, 429 when its budget allows no disruption, 500 when more than one budget covers it.
 */
export async function evictPod(pods: ResourceStore, pdbs: ResourceStore, ns: string, name: string, options: DeleteOptions): Promise<void> {
  const pod = await pods.get(ns, name);
  if (!canIgnorePDB(pod)) {
    const budgets = await budgetsOf(pdbs, pod);
    if (budgets.length > 1) throw internal("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
    // a pod that is not ready counts as unhealthy already: while the budget is met, it goes without taking a disruption
    const pdb = budgets[0];
    const st = pdb?.status ?? {};
    const spare = !isPodReady(pod) && (st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) > 0;
    if (pdb && !spare) {
      if (options.dryRun) takeDisruption(await pdbs.get(ns, pdb.metadata.name), name);
      else await pdbs.guaranteedUpdate(ns, pdb.metadata.name, (cur) => takeDisruption(cur, name), { sub: "status", serverOwned: true });
    }
  }
  await pods.delete(ns, name, options);
}

/** The Eviction a client posted: its kind and name as upstream's decoder and EvictionREST check them. */
export function checkEviction(body: unknown, name: string): Obj {
  const e = body as Obj;
  if (typeof e !== "object" || e === null || Array.isArray(e) || e.kind !== "Eviction" || !["policy/v1beta1", "policy/v1"].includes(e.apiVersion)) {
    throw badRequest(`the body of the request must be a policy/v1beta1 Eviction`);
  }
  if ((e.metadata?.name ?? "") !== name) throw badRequest("name in URL does not match name in Eviction object");
  return e;
}
