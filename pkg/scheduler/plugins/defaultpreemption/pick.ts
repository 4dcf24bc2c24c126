// Choosing among candidate nodes (upstream's pickOneNodeForPreemption): each criterion narrows the
// field until one node is left.
import { priorityOf, startTimeOf } from "./pods.ts";
import type { Candidate } from "./victims.ts";

const INT32_OFFSET = 2147483648;

/** Keeps the candidates with the least value of `f`. */
function fewest(cands: Candidate[], f: (c: Candidate) => number): Candidate[] {
  let best = Infinity;
  let out: Candidate[] = [];
  for (const c of cands) {
    const v = f(c);
    if (v < best) { best = v; out = [c]; } else if (v === best) out.push(c);
  }
  return out;
}

/** The earliest start among the victims of the highest priority. */
function earliestStartOfHighestPriority(c: Candidate, now: number): number {
  let maxPriority = priorityOf(c.victims[0]);
  let earliest = startTimeOf(c.victims[0], now);
  for (const p of c.victims) {
    const pr = priorityOf(p);
    const t = startTimeOf(p, now);
    if (pr === maxPriority && t < earliest) earliest = t;
    else if (pr > maxPriority) { maxPriority = pr; earliest = t; }
  }
  return earliest;
}

/**
 * A node needing no eviction wins outright; otherwise the fewest budget violations, then the
 * lowest priority of the first victim, the smallest sum of priorities, the fewest victims, and
 * last the node whose most important victims started latest.
 */
export function pickOneNodeForPreemption(candidates: Candidate[], now: number): Candidate | null {
  if (candidates.length === 0) return null;
  const free = candidates.find((c) => c.victims.length === 0);
  if (free) return free;
  let field = fewest(candidates, (c) => c.numPDBViolations);
  if (field.length > 1) field = fewest(field, (c) => priorityOf(c.victims[0]));
  // Priorities are shifted to be non-negative so more pods always sum to more.
  if (field.length > 1) field = fewest(field, (c) => c.victims.reduce((s, p) => s + priorityOf(p) + INT32_OFFSET, 0));
  if (field.length > 1) field = fewest(field, (c) => c.victims.length);
  if (field.length === 1) return field[0];
  let chosen = field[0];
  let latest = earliestStartOfHighestPriority(chosen, now);
  for (const c of field.slice(1)) {
    const t = earliestStartOfHighestPriority(c, now);
    if (t > latest) { latest = t; chosen = c; }
  }
  return chosen;
}
