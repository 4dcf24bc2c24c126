// What InterPodAffinity's filter and score share: counts by topology pair, and whether an affinity
// term selects a pod (by namespace, and by namespaceSelector when that feature is on).
import { NOTHING, type AffinityTerm, type Labels, type Listers, type Node, type Pod } from "../../framework/index.ts";

/** Counts by topology key and value; entries that drop to zero are removed. */
export class TopologyCounts {
  private readonly byKey = new Map<string, Map<string, number>>();
  /** How many (key, value) pairs have a count. */
  pairs = 0;

  get(key: string, value: string): number {
    return this.byKey.get(key)?.get(value) ?? 0;
  }

  add(key: string, value: string, delta: number): void {
    let values = this.byKey.get(key);
    if (!values) this.byKey.set(key, (values = new Map()));
    const before = values.get(value);
    const n = (before ?? 0) + delta;
    if (n === 0) {
      if (before !== undefined) { values.delete(value); this.pairs--; }
      if (values.size === 0) this.byKey.delete(key);
      return;
    }
    if (before === undefined) this.pairs++;
    values.set(value, n);
  }

  /** Adds delta to the node's pair for the key, when the node has that label. */
  addForNode(node: Node, key: string, delta: number): void {
    const value = node.metadata.labels?.[key];
    if (value !== undefined) this.add(key, value, delta);
  }

  /** The sum over the node's pairs for every key counted. */
  sumForNode(node: Node): number {
    let sum = 0;
    const labels = node.metadata.labels;
    if (!labels) return 0;
    for (const [key, values] of this.byKey) {
      const v = labels[key];
      if (v !== undefined) sum += values.get(v) ?? 0;
    }
    return sum;
  }

  /** True when any of the node's pairs has a positive count. */
  anyPositiveForNode(node: Node): boolean {
    const labels = node.metadata.labels;
    if (!labels) return false;
    for (const [key, values] of this.byKey) {
      const v = labels[key];
      if (v !== undefined && (values.get(v) ?? 0) > 0) return true;
    }
    return false;
  }

  clone(): TopologyCounts {
    const c = new TopologyCounts();
    for (const [k, v] of this.byKey) c.byKey.set(k, new Map(v));
    c.pairs = this.pairs;
    return c;
  }
}

/** A namespace's labels, looked up once per cycle; null when namespaceSelector is off. */
export type NamespaceLabelsOf = ((namespace: string) => Labels | undefined) | null;

export function namespaceLabelsLookup(listers: Listers, enabled: boolean): NamespaceLabelsOf {
  if (!enabled) return null;
  const seen = new Map<string, Labels | undefined>();
  return (ns) => {
    if (!seen.has(ns)) seen.set(ns, listers.namespaceLabels(ns));
    return seen.get(ns);
  };
}

/**
 * Whether the term selects the pod: the pod's namespace is one the term names (or, with the
 * PodAffinityNamespaceSelector feature, one its namespaceSelector matches) and its labels match.
 */
export function termMatches(t: AffinityTerm, pod: Pod, nsLabelsOf: NamespaceLabelsOf): boolean {
  const ns = pod.metadata.namespace ?? "";
  if (!t.namespaces.has(ns)) {
    if (nsLabelsOf === null || t.namespaceSelector === NOTHING || !t.namespaceSelector.matches(nsLabelsOf(ns))) return false;
  }
  return t.selector.matches(pod.metadata.labels);
}

/** True when there are terms and the pod matches all of them. */
export function matchesAllTerms(terms: readonly AffinityTerm[], pod: Pod, nsLabelsOf: NamespaceLabelsOf): boolean {
  if (terms.length === 0) return false;
  for (const t of terms) if (!termMatches(t, pod, nsLabelsOf)) return false;
  return true;
}
