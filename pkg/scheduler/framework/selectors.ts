// Label and node selectors compiled once into matchers, so a pod's terms are parsed once per pod
// rather than once per node (upstream's labels.Selector and nodeaffinity.NodeSelector).
import type { LabelSelector, Labels, Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm } from "./api.ts";

export interface Selector {
  matches(labels: Labels | undefined): boolean;
  /** True for the selector that matches everything ({}). */
  readonly everything: boolean;
}

const EMPTY: Labels = {};
export const NOTHING: Selector = { matches: () => false, everything: false };
export const EVERYTHING: Selector = { matches: () => true, everything: true };

type LabelTest = (labels: Labels) => boolean;

/** One requirement of a label selector (In, NotIn, Exists, DoesNotExist); throws on an unknown operator. */
function labelRequirement(key: string, operator: string, values: string[] | undefined): LabelTest {
  const vals = values ?? [];
  switch (operator) {
    case "In":
      if (vals.length === 1) { const v = vals[0]; return (l) => l[key] === v; }
      { const set = new Set(vals); return (l) => key in l && set.has(l[key]); }
    case "NotIn":
      { const set = new Set(vals); return (l) => !(key in l) || !set.has(l[key]); }
    case "Exists":
      return (l) => key in l;
    case "DoesNotExist":
      return (l) => !(key in l);
    default:
      throw new Error(`"${operator}" is not a valid pod selector operator`);
  }
}

function allOf(tests: LabelTest[]): Selector {
  if (tests.length === 0) return EVERYTHING;
  if (tests.length === 1) { const t = tests[0]; return { matches: (l) => t(l ?? EMPTY), everything: false }; }
  return {
    matches(l) {
      const labels = l ?? EMPTY;
      for (let i = 0; i < tests.length; i++) if (!tests[i](labels)) return false;
      return true;
    },
    everything: false,
  };
}

/** metav1.LabelSelectorAsSelector: null matches nothing, {} matches everything. */
export function labelSelector(sel: LabelSelector | null | undefined): Selector {
  if (sel == null) return NOTHING;
  const tests: LabelTest[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) tests.push(labelRequirement(k, "In", [v]));
  for (const r of sel.matchExpressions ?? []) tests.push(labelRequirement(r.key, r.operator, r.values));
  return allOf(tests);
}

/** labels.SelectorFromSet: a pod's nodeSelector, every pair required. */
export function selectorFromSet(set: Labels | undefined): Selector {
  return allOf(Object.entries(set ?? {}).map(([k, v]) => labelRequirement(k, "In", [v])));
}

// --- node selectors (nodeAffinity) ---

type NodeTest = (node: Node) => boolean;

function integerValue(v: string): number | null {
  return /^-?[0-9]+$/.test(v) ? Number(v) : null;
}

/** A node selector requirement against the node's labels; In/NotIn/Exists/DoesNotExist/Gt/Lt. */
function nodeLabelRequirement(r: NodeSelectorRequirement): NodeTest {
  const vals = r.values ?? [];
  if (r.operator === "Gt" || r.operator === "Lt") {
    if (vals.length !== 1) throw new Error(`for 'Gt', 'Lt' operators, exactly one value is required`);
    const bound = integerValue(vals[0]);
    if (bound === null) throw new Error(`for 'Gt', 'Lt' operators, the value must be an integer`);
    const gt = r.operator === "Gt";
    return (n) => {
      const v = n.metadata.labels?.[r.key];
      if (v === undefined) return false;
      const x = integerValue(v);
      return x !== null && (gt ? x > bound : x < bound);
    };
  }
  if ((r.operator === "In" || r.operator === "NotIn") && vals.length === 0) {
    throw new Error(`for 'in', 'notin' operators, values set can't be empty`);
  }
  const t = labelRequirement(r.key, r.operator, vals);
  return (n) => t(n.metadata.labels ?? EMPTY);
}

/** matchFields supports metadata.name with In and NotIn, as upstream. */
function nodeFieldRequirement(r: NodeSelectorRequirement): NodeTest {
  if (r.key !== "metadata.name") throw new Error(`not a valid field selector key: ${r.key}`);
  const vals = new Set(r.values ?? []);
  if (r.operator === "In") return (n) => vals.has(n.metadata.name ?? "");
  if (r.operator === "NotIn") return (n) => !vals.has(n.metadata.name ?? "");
  throw new Error(`"${r.operator}" is not a valid field selector operator`);
}

/** One term: its expressions and fields ANDed; a term with neither matches no node. */
export function nodeSelectorTerm(term: NodeSelectorTerm): NodeTest {
  const tests = [
    ...(term.matchExpressions ?? []).map(nodeLabelRequirement),
    ...(term.matchFields ?? []).map(nodeFieldRequirement),
  ];
  if (tests.length === 0) return () => false;
  return (n) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i](n)) return false;
    return true;
  };
}

/**
 * A NodeSelector: its terms ORed. A term that does not parse matches nothing (a pod's own affinity,
 * as upstream's lazy-error selector); with `strict` it throws instead (configuration).
 */
export function nodeSelector(sel: NodeSelector, strict = false): NodeTest {
  const terms: NodeTest[] = [];
  for (const t of sel.nodeSelectorTerms ?? []) {
    try { terms.push(nodeSelectorTerm(t)); } catch (e) { if (strict) throw e; }
  }
  return (n) => {
    for (let i = 0; i < terms.length; i++) if (terms[i](n)) return true;
    return false;
  };
}
