// PodDisruptionBudgets as preemption reads them: which victims would take a budget below zero.
import { labelSelector, NOTHING, type AnyObject, type Pod, type Selector } from "../../framework/index.ts";

export interface Budget {
  namespace: string;
  selector: Selector;
  allowed: number;
  disrupted: Record<string, unknown>;
}

/** The budgets that can select pods; one without a usable selector selects none. */
export function compileBudgets(pdbs: AnyObject[]): Budget[] {
  const out: Budget[] = [];
  for (const pdb of pdbs) {
    let selector: Selector;
    try { selector = labelSelector(pdb.spec?.selector); } catch { continue; }
    // An empty selector matches nothing here, as upstream.
    if (selector === NOTHING || selector.everything) continue;
    out.push({
      namespace: pdb.metadata.namespace ?? "",
      selector,
      allowed: Number(pdb.status?.disruptionsAllowed ?? 0),
      disrupted: pdb.status?.disruptedPods ?? {},
    });
  }
  return out;
}

/**
 * Splits pods (in the order given) into those whose eviction would violate a budget and the
 * rest, spending each budget's allowance as it goes. Pods a budget already counts as disrupted
 * do not spend it.
 */
export function splitByBudgetViolation(pods: Pod[], budgets: Budget[]): { violating: Pod[]; nonViolating: Pod[] } {
  const allowed = budgets.map((b) => b.allowed);
  const violating: Pod[] = [];
  const nonViolating: Pod[] = [];
  for (const pod of pods) {
    let violated = false;
    const labels = pod.metadata.labels;
    if (labels && Object.keys(labels).length > 0) {
      for (let i = 0; i < budgets.length; i++) {
        const b = budgets[i];
        if (b.namespace !== pod.metadata.namespace || !b.selector.matches(labels)) continue;
        if (Object.hasOwn(b.disrupted, pod.metadata.name ?? "")) continue;
        allowed[i]--;
        if (allowed[i] < 0) violated = true;
      }
    }
    (violated ? violating : nonViolating).push(pod);
  }
  return { violating, nonViolating };
}
