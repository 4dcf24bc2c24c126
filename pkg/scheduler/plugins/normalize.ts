// Score normalization shared by plugins (upstream's helper.DefaultNormalizeScore).
import type { NodeScore } from "../framework/index.ts";

/**
 * Scales scores so the highest becomes `maxPriority` (integer division, as upstream); `reverse`
 * flips them so the lowest raw score wins. All-zero scores become `maxPriority` when reversed.
 */
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: NodeScore[]): null {
  let maxCount = 0;
  for (const s of scores) if (s.score > maxCount) maxCount = s.score;
  if (maxCount === 0) {
    if (reverse) for (const s of scores) s.score = maxPriority;
    return null;
  }
  for (const s of scores) {
    let v = Math.trunc((maxPriority * s.score) / maxCount);
    if (reverse) v = maxPriority - v;
    s.score = v;
  }
  return null;
}
