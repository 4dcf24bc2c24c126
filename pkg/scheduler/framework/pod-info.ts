// A pod with its inter-pod affinity terms parsed once (upstream's framework.PodInfo), and the entry
// the scheduling queue keeps for a pending pod (QueuedPodInfo).
import type { Labels, Pod, PodAffinityTerm, WeightedPodAffinityTerm } from "./api.ts";
import { labelSelector, type Selector } from "./selectors.ts";

export interface AffinityTerm {
  namespaces: Set<string>;
  selector: Selector;
  topologyKey: string;
  namespaceSelector: Selector;
}

export interface WeightedAffinityTerm {
  term: AffinityTerm;
  weight: number;
}

/** Whether a pod in a namespace with these labels is one the term selects. */
export function affinityTermMatches(t: AffinityTerm, pod: Pod, namespaceLabels: Labels | undefined): boolean {
  if (t.namespaces.has(pod.metadata.namespace ?? "") || t.namespaceSelector.matches(namespaceLabels)) {
    return t.selector.matches(pod.metadata.labels);
  }
  return false;
}

function affinityTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
  const namespaces = new Set<string>();
  if ((term.namespaces ?? []).length === 0 && term.namespaceSelector == null) namespaces.add(pod.metadata.namespace ?? "");
  else for (const ns of term.namespaces ?? []) namespaces.add(ns);
  return {
    namespaces,
    selector: labelSelector(term.labelSelector),
    topologyKey: term.topologyKey,
    namespaceSelector: labelSelector(term.namespaceSelector),
  };
}

/** The term lists of a pod without any: one shared, read-only list rather than four per pod held. */
const NONE: never[] = [];
Object.freeze(NONE);

export class PodInfo {
  requiredAffinityTerms: readonly AffinityTerm[] = NONE;
  requiredAntiAffinityTerms: readonly AffinityTerm[] = NONE;
  preferredAffinityTerms: readonly WeightedAffinityTerm[] = NONE;
  preferredAntiAffinityTerms: readonly WeightedAffinityTerm[] = NONE;
  /** Set when a term does not parse; InterPodAffinity reports it as the pod's error. */
  parseError: Error | null = null;

  constructor(public pod: Pod) {
    this.update(pod);
  }

  /** Re-parses for a new version of the pod. */
  update(pod: Pod): void {
    this.pod = pod;
    const a = pod.spec.affinity;
    this.parseError = null;
    try {
      const req = (terms: PodAffinityTerm[] | undefined) => (terms?.length ? terms.map((t) => affinityTerm(pod, t)) : NONE);
      const pref = (terms: WeightedPodAffinityTerm[] | undefined) =>
        (terms?.length ? terms.map((t) => ({ term: affinityTerm(pod, t.podAffinityTerm), weight: t.weight })) : NONE);
      this.requiredAffinityTerms = req(a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
      this.requiredAntiAffinityTerms = req(a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
      this.preferredAffinityTerms = pref(a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
      this.preferredAntiAffinityTerms = pref(a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    } catch (e) {
      this.requiredAffinityTerms = NONE;
      this.requiredAntiAffinityTerms = NONE;
      this.preferredAffinityTerms = NONE;
      this.preferredAntiAffinityTerms = NONE;
      this.parseError = e as Error;
    }
  }

  /** Any (anti-)affinity at all: the node keeps such pods in podsWithAffinity. */
  get hasAffinity(): boolean {
    const a = this.pod.spec.affinity;
    return !!(a?.podAffinity || a?.podAntiAffinity);
  }

  get hasRequiredAntiAffinity(): boolean {
    return this.requiredAntiAffinityTerms.length > 0;
  }
}

/** A pending pod in the scheduling queue. Times are milliseconds (Date.now()). */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** When the pod was added to the queue (or last moved); orders pods of equal priority. */
  timestamp: number;
  /** Scheduling attempts so far; each failure doubles the backoff. */
  attempts: number;
  /** When the pod was first added to the queue, for the e2e scheduling latency. */
  initialAttemptTimestamp: number;
}
