// The four allocation-based score plugins, each a per-resource formula over allocationScorePlugin.
import { MAX_NODE_SCORE, type Plugin } from "../../framework/index.ts";
import {
  NodeResourcesBalancedAllocation, NodeResourcesLeastAllocated, NodeResourcesMostAllocated, RequestedToCapacityRatio,
} from "../names.ts";
import { allocationScorePlugin, resourcesOf, weightedScorer } from "./allocation.ts";

/** Favors nodes with more room left: (capacity - requested) / capacity. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/** Favors fuller nodes: requested / capacity. */
export function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc((requested * MAX_NODE_SCORE) / capacity);
}

export function newLeastAllocated(args: unknown): Plugin {
  const res = resourcesOf(args);
  return allocationScorePlugin(NodeResourcesLeastAllocated, res, weightedScorer(res.map((r) => r.weight!), leastRequestedScore));
}

export function newMostAllocated(args: unknown): Plugin {
  const res = resourcesOf(args);
  return allocationScorePlugin(NodeResourcesMostAllocated, res, weightedScorer(res.map((r) => r.weight!), mostRequestedScore));
}

const fractionOfCapacity = (requested: number, capacity: number) => (capacity === 0 ? 1 : requested / capacity);

/** Favors nodes whose CPU and memory fractions stay close after placing the pod. */
export function newBalancedAllocation(): Plugin {
  return allocationScorePlugin(NodeResourcesBalancedAllocation, [{ name: "cpu" }, { name: "memory" }], (requested, allocatable) => {
    const cpu = fractionOfCapacity(requested[0], allocatable[0]);
    const mem = fractionOfCapacity(requested[1], allocatable[1]);
    // Fractions can pass 1: pods without requests count the defaults.
    if (cpu >= 1 || mem >= 1) return 0;
    return Math.trunc((1 - Math.abs(cpu - mem)) * MAX_NODE_SCORE);
  });
}

export interface UtilizationShapePoint { utilization: number; score: number }
export interface RequestedToCapacityRatioArgs {
  shape?: UtilizationShapePoint[];
  resources?: { name: string; weight?: number }[];
}

const MAX_UTILIZATION = 100;
/** Shape scores are 0..10 in configuration, scaled to node scores. */
const MAX_CUSTOM_PRIORITY_SCORE = 10;

/** The piecewise-linear function through the shape's points, flat beyond its ends. */
function brokenLinear(shape: UtilizationShapePoint[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      if (p <= shape[i].utilization) {
        if (i === 0) return shape[0].score;
        const a = shape[i - 1];
        const b = shape[i];
        return a.score + Math.trunc(((b.score - a.score) * (p - a.utilization)) / (b.utilization - a.utilization));
      }
    }
    return shape[shape.length - 1].score;
  };
}

/** Scores utilization through the configured shape, weighting resources whose score is positive. */
export function newRequestedToCapacityRatio(args: unknown): Plugin {
  const a = (args ?? {}) as RequestedToCapacityRatioArgs;
  const shape = (a.shape ?? []).map((p) => ({ utilization: p.utilization, score: p.score * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE) }));
  if (shape.length === 0) throw new Error("at least one point must be specified");
  const f = brokenLinear(shape);
  const res = resourcesOf(a);
  const weights = res.map((r) => r.weight!);
  return allocationScorePlugin(RequestedToCapacityRatio, res, (requested, allocatable) => {
    let score = 0;
    let weightSum = 0;
    for (let i = 0; i < weights.length; i++) {
      const cap = allocatable[i];
      const req = requested[i];
      const s = cap === 0 || req > cap ? f(MAX_UTILIZATION) : f(MAX_UTILIZATION - Math.trunc(((cap - req) * MAX_UTILIZATION) / cap));
      if (s > 0) {
        score += s * weights[i];
        weightSum += weights[i];
      }
    }
    return weightSum === 0 ? 0 : Math.round(score / weightSum);
  });
}
