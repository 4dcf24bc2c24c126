// NodeAffinity: the pod's nodeSelector and required node affinity must match the node (and the
// profile's addedAffinity, which applies to every pod); preferred terms add their weights to the score.
import {
  Code, MAX_NODE_SCORE, nodeSelector, nodeSelectorTerm, selectorFromSet, Status, unresolvable,
  type Affinity, type FilterPlugin, type Node, type Plugin, type Pod, type PreferredSchedulingTerm, type ScorePlugin, type Selector,
} from "../framework/index.ts";
import { NodeAffinity } from "./names.ts";
import { defaultNormalizeScore } from "./normalize.ts";

export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity";
export const ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity";

export interface NodeAffinityArgs { addedAffinity?: Affinity["nodeAffinity"] }

type NodeTest = (n: Node) => boolean;
interface WeightedTest { test: NodeTest; weight: number }

/** Preferred terms with a non-zero weight; a term that does not parse is skipped, as upstream. */
function preferred(terms: PreferredSchedulingTerm[] | undefined): WeightedTest[] {
  const out: WeightedTest[] = [];
  for (const t of terms ?? []) {
    if (!t.weight) continue;
    try { out.push({ test: nodeSelectorTerm(t.preference), weight: t.weight }); } catch { /* skipped */ }
  }
  return out;
}

/** What one pod requires of a node, compiled once per pod. */
interface Required { selector: Selector; affinity: NodeTest | null }

/** Compiled per pod object; a pod is immutable once read from the API, so its identity is the key. */
const requiredCache = new WeakMap<Pod, Required>();
const preferredCache = new WeakMap<Pod, WeightedTest[]>();

function requiredOf(pod: Pod): Required {
  let r = requiredCache.get(pod);
  if (!r) {
    const req = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    r = { selector: selectorFromSet(pod.spec.nodeSelector), affinity: req ? nodeSelector(req) : null };
    requiredCache.set(pod, r);
  }
  return r;
}

function matches(r: Required, node: Node): boolean {
  if (!r.selector.everything && !r.selector.matches(node.metadata.labels)) return false;
  return r.affinity === null || r.affinity(node);
}

function preferredOf(pod: Pod): WeightedTest[] {
  let terms = preferredCache.get(pod);
  if (!terms) {
    terms = preferred(pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    preferredCache.set(pod, terms);
  }
  return terms;
}

/** PodMatchesNodeSelectorAndAffinityTerms: nodeSelector and required node affinity both hold. */
export function podMatchesNodeSelectorAndAffinityTerms(pod: Pod, node: Node): boolean {
  return matches(requiredOf(pod), node);
}

export function newNodeAffinity(args: unknown): Plugin {
  const added = (args as NodeAffinityArgs | undefined)?.addedAffinity;
  let addedRequired: NodeTest | null = null;
  const addedReq = added?.requiredDuringSchedulingIgnoredDuringExecution;
  try {
    if (addedReq) addedRequired = nodeSelector(addedReq, true);
  } catch (e) {
    throw new Error(`parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: ${(e as Error).message}`);
  }
  const addedPreferred = preferred(added?.preferredDuringSchedulingIgnoredDuringExecution);
  // The filter runs for one pod over many nodes: its compiled terms are kept at hand.
  let lastPod: Pod | null = null;
  let lastRequired: Required | null = null;
  const plugin: FilterPlugin & ScorePlugin = {
    name: NodeAffinity,
    filterSkips(pod) {
      const r = requiredOf(pod);
      return !addedRequired && r.selector.everything && r.affinity === null;
    },
    scoreSkips: (pod) => addedPreferred.length === 0 && preferredOf(pod).length === 0,
    filter(_state, pod, nodeInfo) {
      const node = nodeInfo.node;
      if (!node) return new Status(Code.Error, "node not found");
      if (addedRequired && !addedRequired(node)) return unresolvable(ERR_REASON_ENFORCED);
      if (pod !== lastPod) {
        lastPod = pod;
        lastRequired = requiredOf(pod);
      }
      return matches(lastRequired!, node) ? null : unresolvable(ERR_REASON_POD);
    },
    score(_state, pod, nodeInfo) {
      const node = nodeInfo.node;
      if (!node) throw new Error(`getting node "${nodeInfo.name}" from Snapshot: node not found`);
      const terms = preferredOf(pod);
      let score = 0;
      for (const t of addedPreferred) if (t.test(node)) score += t.weight;
      for (const t of terms) if (t.test(node)) score += t.weight;
      return score;
    },
    scoreExtensions() {
      return { normalizeScore: (_state, _pod, scores) => defaultNormalizeScore(MAX_NODE_SCORE, false, scores) };
    },
  };
  return plugin;
}
